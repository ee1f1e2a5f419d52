// goread MODE FILE: what Go's archive/tar or archive/zip reads in FILE, for
// tests/corpus/compare (tests/cli/differential.bats builds it into build/,
// offline: standard library only, no module).
//
// MODE is tar (FILE is an uncompressed tar stream), tgz (gzip, one member
// or more: compress/gzip's default) or zip.  Prints one JSON object a line
// per entry, in archive order: {"name", "type", "size", "sha256"}, where
// type is "file", "dir" or "type X" for anything else (X the tar type byte
// or the zip mode's file type), and size and sha256 are those of the data
// read (files only).  An error ends the listing with {"error": "..."} and
// exit status 1; a usage error exits 2.
package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

type entry struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256,omitempty"`
}

var out = json.NewEncoder(os.Stdout)

func fail(err error) {
	out.Encode(map[string]string{"error": err.Error()})
	os.Exit(1)
}

// hashed reads r to its end: the byte count and the SHA-256.
func hashed(r io.Reader) (int64, string, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	return n, hex.EncodeToString(h.Sum(nil)), err
}

func tarType(t byte) string {
	switch t {
	case tar.TypeReg, tar.TypeRegA, tar.TypeCont:
		return "file"
	case tar.TypeDir:
		return "dir"
	}
	return fmt.Sprintf("type %q", t)
}

func listTar(r io.Reader) {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			fail(err)
		}
		e := entry{Name: h.Name, Type: tarType(h.Typeflag)}
		if e.Type == "file" {
			if e.Size, e.SHA256, err = hashed(tr); err != nil {
				fail(err)
			}
		}
		out.Encode(e)
	}
}

func zipType(f *zip.File) string {
	m := f.Mode()
	switch {
	case m.IsDir() || strings.HasSuffix(f.Name, "/"):
		return "dir"
	case m.IsRegular():
		return "file"
	}
	return fmt.Sprintf("type %v", m.Type())
}

func listZip(path string) {
	z, err := zip.OpenReader(path)
	if err != nil {
		fail(err)
	}
	defer z.Close()
	for _, f := range z.File {
		e := entry{Name: f.Name, Type: zipType(f)}
		if e.Type == "file" {
			rc, err := f.Open()
			if err != nil {
				fail(err)
			}
			e.Size, e.SHA256, err = hashed(rc)
			rc.Close()
			if err != nil {
				fail(err)
			}
		}
		out.Encode(e)
	}
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: goread tar|tgz|zip FILE")
		os.Exit(2)
	}
	mode, path := os.Args[1], os.Args[2]
	if mode == "zip" {
		listZip(path)
		return
	}
	f, err := os.Open(path)
	if err != nil {
		fail(err)
	}
	defer f.Close()
	switch mode {
	case "tar":
		listTar(f)
	case "tgz":
		gz, err := gzip.NewReader(f)
		if err != nil {
			fail(err)
		}
		listTar(gz)
	default:
		fmt.Fprintln(os.Stderr, "usage: goread tar|tgz|zip FILE")
		os.Exit(2)
	}
}
