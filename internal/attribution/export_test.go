package attribution

// TipsHeld is how many run tip records the process remembers.
func TipsHeld() int {
	tips.Lock()
	defer tips.Unlock()
	return len(tips.m)
}

// ForgetTips empties the memory of run tip records, which other tests of
// the process filled.
func ForgetTips() {
	tips.Lock()
	defer tips.Unlock()
	clear(tips.m)
}
