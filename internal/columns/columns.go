// Package columns prints tables for a terminal, where a Chinese character
// takes two columns: the desk's and the server's command lines share it.
package columns

import (
	"fmt"
	"io"
	"strings"
)

// Write prints rows as columns two spaces apart, measured as a
// terminal shows them: a Chinese character takes two columns (tabwriter
// counts one, and Chinese names would push the columns out of line).
func Write(w io.Writer, rows [][]string) {
	widths := map[int]int{}
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], Width(cell))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for i, cell := range row {
			b.WriteString(cell)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-Width(cell)+2))
			}
		}
		fmt.Fprintln(w, b.String())
	}
}

// Width counts East Asian wide characters (CJK, Hangul, full-width
// forms) as two columns.
func Width(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r >= 0x1100 && r <= 0x115F, r >= 0x2E80 && r <= 0xA4CF, r >= 0xAC00 && r <= 0xD7A3,
			r >= 0xF900 && r <= 0xFAFF, r >= 0xFE30 && r <= 0xFE4F, r >= 0xFF00 && r <= 0xFF60, r >= 0xFFE0 && r <= 0xFFE6:
			n += 2
		default:
			n++
		}
	}
	return n
}
