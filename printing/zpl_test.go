package printing

import (
	"bytes"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// zplLabel is one ^XA…^XZ block read back.
type zplLabel struct {
	width, height int
	home          [2]int
	qrAt          [2]int
	qrMag         int
	qrData        string
	texts         []string
	textAt        [][2]int
}

var (
	zplField = regexp.MustCompile(`\^FO(\d+),(\d+)(\^BQN,2,(\d+)|\^A0N,\d+,\d+\^FH_)\^FD(.*?)\^FS`)
	zplPW    = regexp.MustCompile(`\^PW(\d+)`)
	zplLL    = regexp.MustCompile(`\^LL(\d+)`)
	zplLH    = regexp.MustCompile(`\^LH(\d+),(\d+)`)
)

func parseZPL(t *testing.T, data string) []zplLabel {
	t.Helper()
	var out []zplLabel
	for _, block := range strings.Split(data, "^XZ") {
		if strings.TrimSpace(block) == "" {
			continue
		}
		if !strings.HasPrefix(strings.TrimSpace(block), "^XA") {
			t.Fatalf("label block does not start with ^XA: %q", block)
		}
		var l zplLabel
		atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
		l.width, l.height = atoi(zplPW.FindStringSubmatch(block)[1]), atoi(zplLL.FindStringSubmatch(block)[1])
		if m := zplLH.FindStringSubmatch(block); m != nil {
			l.home = [2]int{atoi(m[1]), atoi(m[2])}
		}
		for _, m := range zplField.FindAllStringSubmatch(block, -1) {
			at := [2]int{atoi(m[1]), atoi(m[2])}
			if m[4] != "" {
				l.qrAt, l.qrMag, l.qrData = at, atoi(m[4]), m[5]
			} else {
				l.texts = append(l.texts, m[5])
				l.textAt = append(l.textAt, at)
			}
		}
		out = append(out, l)
	}
	return out
}

func TestZPLReadsBack(t *testing.T) {
	for _, dpi := range []int{203, 300} {
		for _, tmpl := range builtin {
			if !tmpl.Thermal {
				continue
			}
			labels := testLabels(t, 4, "")
			var buf bytes.Buffer
			if err := WriteZPL(&buf, labels, Options{Template: tmpl, EC: "Q", OffsetX: 1, OffsetY: 2}, dpi); err != nil {
				t.Fatal(err)
			}
			got := parseZPL(t, buf.String())
			if len(got) != len(labels) {
				t.Fatalf("%s at %d dpi: %d labels, want %d", tmpl.Name, dpi, len(got), len(labels))
			}
			dotsPerMM := float64(dpi) / 25.4
			wantW, wantH := int(tmpl.LabelWidth*dotsPerMM+0.5), int(tmpl.LabelHeight*dotsPerMM+0.5)
			for i, l := range got {
				if l.width != wantW || l.height != wantH {
					t.Fatalf("%s label %d is %d×%d dots, want %d×%d", tmpl.Name, i, l.width, l.height, wantW, wantH)
				}
				if l.home != [2]int{int(dotsPerMM + 0.5), int(2*dotsPerMM + 0.5)} {
					t.Fatalf("^LH %v does not carry the 1 mm / 2 mm calibration", l.home)
				}
				if want := "QA," + labels[i].Code.String(); l.qrData != want {
					t.Fatalf("QR data %q, want %q", l.qrData, want)
				}
				if l.qrMag < 3 || l.qrMag > 10 {
					t.Fatalf("QR magnification %d out of range", l.qrMag)
				}
				for j, at := range append([][2]int{l.qrAt}, l.textAt...) {
					if at[0] < 0 || at[0] >= wantW || at[1] < 0 || at[1] >= wantH {
						t.Fatalf("field %d at %v lies outside the %d×%d label", j, at, wantW, wantH)
					}
				}
				if joined := strings.ReplaceAll(strings.Join(l.texts, "-"), " ", ""); !strings.Contains(joined, labels[i].Code.Random) {
					t.Fatalf("text %q does not show the code", l.texts)
				}
			}
		}
	}
	if err := WriteZPL(io.Discard, testLabels(t, 1, ""), Options{Template: builtin[5]}, 600); err == nil {
		t.Fatal("600 dpi accepted")
	}
}

func TestZPLEscapesCommands(t *testing.T) {
	var buf bytes.Buffer
	labels := testLabels(t, 1, "A^B~C_")
	if err := WriteZPL(&buf, labels, Options{Template: builtin[7]}, 203); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "A_5EB_7EC_5F") {
		t.Fatalf("title not escaped:\n%s", buf.String())
	}
}

func TestSendRawLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	received := make(chan []byte, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		data, _ := io.ReadAll(conn)
		conn.Close()
		received <- data
	}()
	var buf bytes.Buffer
	WriteZPL(&buf, testLabels(t, 3, ""), Options{Template: builtin[5]}, 203)
	if err := SendRaw(ln.Addr().String(), buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	if got := <-received; !bytes.Equal(got, buf.Bytes()) {
		t.Fatalf("printer received %d bytes, want %d", len(got), buf.Len())
	}
	ln.Close()
	if err := SendRaw(ln.Addr().String(), buf.Bytes()); err == nil || !strings.Contains(err.Error(), "cannot reach") {
		t.Fatalf("closed port: %v", err)
	}
}

var zplGFA = regexp.MustCompile(`\^GFA,(\d+),\d+,(\d+),([0-9A-F]+)\^FS`)

// TestZPLPrintsEveryScript: a thermal label's line that is not plain ASCII
// goes to the printer as a graphic drawn from qrdesk's fonts, not as text
// for the printer's font 0 (which has no Chinese and, on many models, no
// Greek, Cyrillic or Vietnamese): no ^FD field carries a non-ASCII
// character, each such line is a ^GFA with ink in it, and two refs that
// differ in one letter (ü, ö) draw differently.
func TestZPLPrintsEveryScript(t *testing.T) {
	roll, _ := FindTemplate("", "roll-60x40")
	graphics := func(ref string) []string {
		t.Helper()
		l := testLabels(t, 1, "提货码")[0]
		l.Ref = ref
		var buf bytes.Buffer
		if err := WriteZPL(&buf, []Label{l}, Options{Template: roll}, 203); err != nil {
			t.Fatal(err)
		}
		for _, fd := range regexp.MustCompile(`\^FD([^^]*)`).FindAllStringSubmatch(buf.String(), -1) {
			if !isASCII(fd[1]) {
				t.Fatalf("a text field carries %q to the printer's font", fd[1])
			}
		}
		var out []string
		for _, m := range zplGFA.FindAllStringSubmatch(buf.String(), -1) {
			total, _ := strconv.Atoi(m[1])
			if len(m[3]) != 2*total {
				t.Fatalf("^GFA says %d bytes, carries %d", total, len(m[3])/2)
			}
			if strings.Trim(m[3], "0") == "" {
				t.Fatal("a ^GFA line has no ink")
			}
			out = append(out, m[3])
		}
		if len(out) != 2 {
			t.Fatalf("%d graphic lines, want 2 (title and ref)", len(out))
		}
		return out
	}
	for _, s := range scriptRefs {
		graphics(s.ref)
	}
	if a, b := graphics("Müller"), graphics("Möller"); a[1] == b[1] {
		t.Fatal("ü and ö draw the same ref")
	}
}
