package odb

import (
	"bufio"
	"io"
	"os"
	"sync"

	"github.com/klauspost/compress/zlib"
)

// inflater is a zlib reader kept for reuse with its buffers. Setting one up
// for every object (a 32 KiB window, Huffman tables, a read buffer) showed
// in profiles of commands that read many small records.
type inflater struct {
	in  *bufio.Reader // buffers the compressed input; a ByteReader, so flate adds no buffer of its own
	zr  io.ReadCloser // nil until the first stream
	out *bufio.Reader // buffers the inflated output, for header parsing
}

var inflaters = sync.Pool{New: func() any { return new(inflater) }}

// newInflater returns an inflater reading the zlib stream src. Give it back
// with release once nothing reads from it any more.
func newInflater(src io.Reader) (*inflater, error) {
	z := inflaters.Get().(*inflater)
	if z.in == nil {
		z.in = bufio.NewReader(src)
	} else {
		z.in.Reset(src)
	}
	var err error
	if z.zr == nil {
		z.zr, err = zlib.NewReader(z.in)
	} else {
		err = z.zr.(zlib.Resetter).Reset(z.in, nil)
	}
	if err != nil {
		z.release()
		return nil, err
	}
	if z.out == nil {
		z.out = bufio.NewReader(z.zr)
	} else {
		z.out.Reset(z.zr)
	}
	return z, nil
}

func (z *inflater) release() {
	z.in.Reset(nil)
	if z.out != nil {
		z.out.Reset(nil)
	}
	inflaters.Put(z)
}

// inflateReader reads an inflated stream and gives its inflater back on
// Close; reading after Close fails instead of reading another stream.
type inflateReader struct {
	io.Reader
	z *inflater
	f io.Closer // the underlying file, if any
}

func (r *inflateReader) Close() error {
	if r.z == nil {
		return nil
	}
	r.z.release()
	r.z, r.Reader = nil, closedReader{}
	if r.f != nil {
		return r.f.Close()
	}
	return nil
}

type closedReader struct{}

func (closedReader) Read([]byte) (int, error) { return 0, os.ErrClosed }
