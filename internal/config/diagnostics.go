package config

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// JSONPos is a position in a JSONDiagnostic.
type JSONPos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// JSONDiagnostic is one element of `airlock validate --json` (see doc.go).
type JSONDiagnostic struct {
	Severity string   `json:"severity"` // "error" | "warning"
	Summary  string   `json:"summary"`
	Detail   string   `json:"detail"`
	Filename string   `json:"filename"`
	Start    *JSONPos `json:"start,omitempty"`
	End      *JSONPos `json:"end,omitempty"`
}

// JSONDiagnostics converts diags to their JSON form; never nil.
func JSONDiagnostics(diags hcl.Diagnostics) []JSONDiagnostic {
	out := []JSONDiagnostic{}
	for _, d := range diags {
		j := JSONDiagnostic{Severity: severity(d), Summary: d.Summary, Detail: d.Detail}
		if d.Subject != nil {
			j.Filename = d.Subject.Filename
			j.Start = &JSONPos{d.Subject.Start.Line, d.Subject.Start.Column, d.Subject.Start.Byte}
			j.End = &JSONPos{d.Subject.End.Line, d.Subject.End.Column, d.Subject.End.Byte}
		}
		out = append(out, j)
	}
	return out
}

func severity(d *hcl.Diagnostic) string {
	if d.Severity == hcl.DiagWarning {
		return "warning"
	}
	return "error"
}

// WriteJSON writes diags as an indented JSON array.
func WriteJSON(w io.Writer, diags hcl.Diagnostics) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(JSONDiagnostics(diags))
}

// WriteText writes each diagnostic as
//
//	FILE:LINE,COL: summary          (warnings: "FILE:LINE,COL: warning: summary")
//	    LINE | source line
//	         |     ^^^^^
//	  Detail sentence.
//
// src is the file's content (nil: no snippets). Diagnostics without a
// place print "airlock: summary".
func WriteText(w io.Writer, diags hcl.Diagnostics, src []byte) error {
	lines := splitLines(src)
	bw := bufio.NewWriter(w)
	for _, d := range diags {
		prefix := ""
		if d.Severity == hcl.DiagWarning {
			prefix = "warning: "
		}
		if d.Subject == nil {
			fmt.Fprintf(bw, "airlock: %s%s\n", prefix, d.Summary)
		} else {
			s := d.Subject
			fmt.Fprintf(bw, "%s:%d,%d: %s%s\n", s.Filename, s.Start.Line, s.Start.Column, prefix, d.Summary)
			writeSnippet(bw, lines, s)
		}
		if d.Detail != "" {
			fmt.Fprintf(bw, "  %s\n", d.Detail)
		}
		fmt.Fprintln(bw)
	}
	return bw.Flush()
}

func splitLines(src []byte) [][]byte {
	if src == nil {
		return nil
	}
	return bytes.Split(src, []byte("\n"))
}

// writeSnippet prints the subject's first line with a caret underline.
func writeSnippet(w io.Writer, lines [][]byte, r *hcl.Range) {
	n := r.Start.Line
	if n < 1 || n > len(lines) {
		return
	}
	line := strings.TrimRight(string(lines[n-1]), "\r")
	line = strings.Map(func(c rune) rune {
		if c == '\t' {
			return ' '
		}
		if c < 0x20 || c == 0x7f {
			return '?'
		}
		return c
	}, line)
	num := fmt.Sprintf("%5d", n)
	fmt.Fprintf(w, "%s | %s\n", num, line)
	start := max(r.Start.Column, 1)
	end := r.End.Column
	if r.End.Line != r.Start.Line {
		end = len([]rune(line)) + 1
	}
	width := max(end-start, 1)
	fmt.Fprintf(w, "%s | %s%s\n", strings.Repeat(" ", len(num)), strings.Repeat(" ", start-1), strings.Repeat("^", width))
}
