package app

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"
)

// TestParseOrderFileRefusesARepeatedHeader: two exports joined into one
// file (the second with its byte-order mark) carry the header line again
// in the middle. It was issued as the order "order" of the customer
// "customer": a label for no order. The row is refused by name.
func TestParseOrderFileRefusesARepeatedHeader(t *testing.T) {
	for name, file := range map[string]string{
		"withBOM":    "order,customer\nB1,Al\n\ufeffB2,Bo\n\ufefforder,customer\nB3,Cy\n",
		"otherWords": "Order Number;Customer\nB1;Al\nORDER;Name\n",
		"chinese":    "订单号,客户\nB1,Al\n订单号,客户\n",
	} {
		t.Run(name, func(t *testing.T) {
			f, err := ParseOrderFile([]byte(file), EncodingAuto, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range f.Orders {
				if k := OrderKey(o.Number); k == "order" || k == "订单号" {
					t.Fatalf("the header line again was taken as order %q (%q)", o.Number, o.Customer)
				}
			}
			if len(f.Refused) != 1 || f.Refused[0].Reason != ReasonHeaderRepeated || f.Refused[0].Chinese == "" ||
				!strings.Contains(f.Refused[0].Message, "header") {
				t.Fatalf("refused %+v, want the repeated header line named (%s)", f.Refused, ReasonHeaderRepeated)
			}
		})
	}
}

// TestParseOrderFileRefusesMixedEncodings: a file of which one line was
// saved as UTF-8 and another as Windows-1252 (two exports joined, or a
// line added in another editor) is not UTF-8 as a whole, so it was read
// as Windows-1252 and the UTF-8 line's "Müller" issued as "MÃ¼ller", on
// the label. Refused whole, naming the UTF-8 line; a file wholly in
// Windows-1252 (its quotes and dashes beside letters too) is read as
// before.
func TestParseOrderFileRefusesMixedEncodings(t *testing.T) {
	cp := func(s string) []byte {
		b, err := charmap.Windows1252.NewEncoder().Bytes([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	mixed := append([]byte("order,customer\nM1,Müller\n"), cp("M2,Müller\n")...)
	_, err := ParseOrderFile(mixed, EncodingAuto, nil)
	var fe *OrderFileError
	if !errors.As(err, &fe) || fe.Reason != ReasonMixedEncoding || !strings.Contains(fe.Message, "line 2") || fe.Chinese == "" {
		t.Fatalf("mixed file: %v, want refused as %s naming line 2", err, ReasonMixedEncoding)
	}
	// Windows-1252 alone, with „quotes“, ß before a quote and ’.
	f, err := ParseOrderFile(cp("order,customer,notes\nW1,Straße“,„Tor 2“ – bitte\nW2,O’Neil,Äpfel – 2 Kisten bei 5 °C\n"), EncodingAuto, nil)
	if err != nil || f.Encoding != EncodingWindows1252 || len(f.Orders) != 2 || f.Orders[0].Customer != "Straße“" {
		t.Fatalf("Windows-1252 file: %+v %v", f, err)
	}
	// Chosen by hand, the encoding is the clerk's word.
	if f, err := ParseOrderFile(mixed, EncodingWindows1252, nil); err != nil || len(f.Orders) != 2 {
		t.Fatalf("mixed file read as windows-1252 by choice: %+v %v", f, err)
	}
}

// TestParseOrderFileRefusesUTF8BesideGBK: a Chinese file one line of which
// is UTF-8 ("张伟") and the others GBK was read as GBK, and the UTF-8 line
// issued as "寮犱紵" on the label. GBK reads almost any bytes as Han; what
// tells them apart is that Chinese Excel's text is GB2312 pairs, and
// UTF-8 read as GBK is not (utf8HanLine). In a million GBK lines of
// two to four characters (5 % with one beyond GB2312), none was taken
// for UTF-8.
func TestParseOrderFileRefusesUTF8BesideGBK(t *testing.T) {
	for name, tc := range map[string]struct {
		data []byte
		want string
	}{
		"oneUTF8":  {append([]byte("order,customer\nM1,张伟\n"), mustEncode(t, "M2,李娜\nM3,王芳\n", true)...), "line 2 is UTF-8, line 3 is not"},
		"oneGBK":   {append([]byte("order,customer\nM1,张伟\nM2,李娜\n"), mustEncode(t, "M3,王芳\n", true)...), "line 2 is UTF-8, line 4 is not"},
		"macLines": {append([]byte("order,customer\rM1,张伟\r"), mustEncode(t, "M2,李娜\r", true)...), "line 2 is UTF-8, line 3 is not"},
	} {
		_, err := ParseOrderFile(tc.data, EncodingAuto, nil)
		var fe *OrderFileError
		if !errors.As(err, &fe) || fe.Reason != ReasonMixedEncoding || !strings.Contains(fe.Message, tc.want) {
			t.Errorf("%s: %v, want %s saying %q", name, err, ReasonMixedEncoding, tc.want)
		}
	}
	// GBK alone, with a character beyond GB2312 (喆, 堃): read as GBK.
	f, err := ParseOrderFile(mustEncode(t, "订单号,客户\nG1,张喆\nG2,王堃\nG3,李娜\n", true), EncodingAuto, nil)
	if err != nil || f.Encoding != EncodingGBK || len(f.Orders) != 3 || f.Orders[1].Customer != "王堃" {
		t.Fatalf("GBK file: %+v %v", f, err)
	}
}
