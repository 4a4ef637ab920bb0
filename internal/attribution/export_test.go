package attribution

// TipsHeld is how many run tip records the process remembers.
func TipsHeld() int {
	tips.Lock()
	defer tips.Unlock()
	return len(tips.m)
}
