package app

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/simplifiedchinese"
)

func mustEncode(t *testing.T, s string, gbk bool) []byte {
	t.Helper()
	enc := charmap.Windows1252.NewEncoder()
	if gbk {
		enc = simplifiedchinese.GBK.NewEncoder()
	}
	out, err := enc.Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Order files as a WMS, Chinese Excel and European Excel write them are
// read alike: the same orders, whatever the encoding and separator.
func TestParseOrderFileEncodings(t *testing.T) {
	for _, tc := range []struct {
		name, enc, want string
		data            []byte
		customer        string
	}{
		{"UTF-8 with BOM, comma", EncodingAuto, EncodingUTF8, []byte(UTF8BOM + "Order,Customer,Parcels,Notes\r\n4711,Müller,3,Tor 2\r\n4712,Zoë Straße,1,\r\n"), "Müller"},
		{"UTF-8 without BOM", EncodingAuto, EncodingUTF8, []byte("order number;customer name;parcels\n4711;Müller;3\n4712;Zoë Straße;1\n"), "Müller"},
		{"GBK, Chinese header", EncodingAuto, EncodingGBK, nil, "张伟"},
		{"Windows-1252, semicolons", EncodingAuto, EncodingWindows1252, nil, "Müller"},
		{"Windows-1252 chosen", EncodingWindows1252, EncodingWindows1252, nil, "Müller"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data
			switch {
			case data == nil && tc.want == EncodingGBK:
				data = mustEncode(t, "订单号,客户,件数,备注\r\n4711,张伟,3,二号门\r\n4712,李娜,1,\r\n", true)
			case data == nil:
				data = mustEncode(t, "Order;Customer;Parcels;Notes\r\n4711;Müller;3;Tor 2\r\n4712;Zoë Straße;1;\r\n", false)
			}
			f, err := ParseOrderFile(data, tc.enc, nil)
			if err != nil {
				t.Fatal(err)
			}
			if f.Encoding != tc.want {
				t.Errorf("encoding %q, want %q", f.Encoding, tc.want)
			}
			if len(f.Orders) != 2 || len(f.Refused) != 0 || f.Parcels() != 4 {
				t.Fatalf("orders %+v refused %+v", f.Orders, f.Refused)
			}
			if o := f.Orders[0]; o.Number != "4711" || o.Customer != tc.customer || o.Parcels != 3 || o.Line != 2 {
				t.Errorf("first order %+v, want 4711 %s 3 parcels on line 2", o, tc.customer)
			}
		})
	}
}

// Every bad row is named with its line and why; the good rows are kept.
func TestParseOrderFileNamesBadRows(t *testing.T) {
	data := "order,customer,parcels,notes\n" +
		"4711,Müller,3\n" +
		",Nobody,1\n" +
		"4713,Kim,zero\n" +
		"4714,Lee,1000\n" +
		"4711,Again,1\n" +
		"\n" +
		"4715,\"Dana\u200f\",2\n" +
		"4716,Chen,1\n" +
		"4717,=SUM(A1:A2),1\n" +
		"\"4718\",\"Weber, Anna\",\"2\"\n" +
		"4719,\"Li\nNa\",1\n" +
		"4720,Ng,1,- fragile\n"
	f, err := ParseOrderFile([]byte(data), EncodingAuto, func(what, s string) error {
		if strings.Contains(s, "Chen") {
			return errors.New("the " + what + " holds a character the label fonts cannot print")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Orders) != 3 || f.Orders[0].Number != "4711" || f.Orders[1].Customer != "Weber, Anna" || f.Orders[1].Line != 11 || f.Orders[2].Number != "4720" {
		t.Errorf("orders taken: %+v, want 4711, 4718 (Weber, Anna, line 11) and 4720", f.Orders)
	}
	want := []string{
		"line 3: the order number is empty",
		`line 4: parcels "zero" is not a number from 1 to 999`,
		`line 5: parcels "1000" is not a number from 1 to 999`,
		"line 6: order 4711 is on line 2 already: give each order one line",
		"line 8: customer name contains an invisible direction mark (U+200F)",
		"line 9: the customer name holds a character the label fonts cannot print",
		`line 10: the customer name "=SUM(A1:A2)" looks like a spreadsheet formula`,
		"line 12: customer name contains a control character (U+000A)",
	}
	if len(f.Refused) != len(want) {
		t.Fatalf("refused %v, want %d rows", f.Refused, len(want))
	}
	for i, w := range want {
		if got := f.Refused[i].Error(); !strings.HasPrefix(got, w) {
			t.Errorf("refused[%d] = %q, want it to start %q", i, got, w)
		}
	}
}

// What is wrong with the file as a whole is said in one sentence.
func TestParseOrderFileRefusesTheFile(t *testing.T) {
	for _, tc := range []struct {
		name, data, enc, want string
	}{
		{"empty", "", EncodingAuto, "the order file is empty"},
		{"no order column", "customer,parcels\nMüller,3\n", EncodingAuto, "names no order number column"},
		{"header only", "order,customer\n", EncodingAuto, "has a header but no orders"},
		{"unknown encoding", "order\n1\n", "latin-9", `encoding "latin-9" is not one of auto, utf-8, gbk, windows-1252`},
		{"not UTF-8", "order\n\xff\xfe\n", EncodingUTF8, "is not UTF-8 text"},
		{"order column twice", "order,订单号\n1,2\n", EncodingAuto, "names the order column twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseOrderFile([]byte(tc.data), tc.enc, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want it to say %q", err, tc.want)
			}
		})
	}
}

func FuzzParseOrderFile(f *testing.F) {
	f.Add([]byte("order,customer,parcels\n4711,Müller,3\n"), "auto")
	f.Add([]byte("订单号;客户\n1;张\n"), "gbk")
	f.Fuzz(func(t *testing.T, data []byte, enc string) {
		o, err := ParseOrderFile(data, enc, nil)
		if err != nil {
			return
		}
		for _, r := range o.Orders {
			if r.Number == "" || r.Parcels < 1 || r.Parcels > MaxOrderParcels || CheckText("order number", r.Number, maxOrderNumberChars) != nil {
				t.Fatalf("taken row %+v", r)
			}
		}
	})
}

// Files as the warehouse's systems really write them: each read whole,
// every row taken, its line the file's line (a quoted cell over two lines
// counts both), a notes cell wrapped in Excel kept on one line.
func TestParseOrderFileRealWorld(t *testing.T) {
	for _, tc := range []struct {
		name, enc string
		data      []byte
		last      OrderRow
	}{
		{"GBK, CRLF, Chinese header, quoted commas", EncodingGBK,
			mustEncode(t, "订单编号,收货人,包裹数,说明\r\n\"SO-1\",\"张伟, 仓库\",\"2\",\"二号门, 左\"\r\nSO-2,李娜,1,\r\n", true),
			OrderRow{Line: 3, Number: "SO-2", Customer: "李娜", Parcels: 1}},
		{"Windows-1252, semicolons, quoted semicolon", EncodingWindows1252,
			mustEncode(t, "Order No;Recipient;Packages;Remarks\r\n4711;\"Müller; Hans\";3;Tor 2\r\n4712;Zoë Straße;1;\r\n", false),
			OrderRow{Line: 3, Number: "4712", Customer: "Zoë Straße", Parcels: 1}},
		{"UTF-8 BOM, a note over two lines", EncodingUTF8,
			[]byte(UTF8BOM + "order,customer,parcels,notes\r\n4711,Müller,3,\"Tor 2\r\nbitte klingeln\"\r\n4712,Weber,1,\r\n"),
			OrderRow{Line: 4, Number: "4712", Customer: "Weber", Parcels: 1}},
		{"tabs, no parcels column", EncodingUTF8,
			[]byte("order\tcustomer\n4711\tMüller\n4712\tWeber\n"),
			OrderRow{Line: 3, Number: "4712", Customer: "Weber", Parcels: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseOrderFile(tc.data, EncodingAuto, nil)
			if err != nil {
				t.Fatal(err)
			}
			if f.Encoding != tc.enc || len(f.Refused) != 0 || len(f.Orders) != 2 {
				t.Fatalf("read as %s: orders %+v, refused %+v; want %s, 2 orders", f.Encoding, f.Orders, f.Refused, tc.enc)
			}
			if got := f.Orders[1]; got != tc.last {
				t.Errorf("second order %+v, want %+v", got, tc.last)
			}
		})
	}
	f, err := ParseOrderFile([]byte("order,customer,parcels,notes\r\n4711,Müller,3,\"Tor 2\r\nbitte klingeln\"\r\n"), EncodingAuto, nil)
	if err != nil || len(f.Orders) != 1 || f.Orders[0].Notes != "Tor 2 / bitte klingeln" {
		t.Fatalf("a wrapped note: %+v %v, want it as \"Tor 2 / bitte klingeln\"", f, err)
	}
}

// Hostile files (hostile4): what a clerk's Excel or WMS writes that the
// first reader got wrong.

// One German name in a Windows-1252 file ("M\xfcller") is a valid GBK
// pair (0xFC 0x6C, a trail byte in ASCII's range) and read as "M黮ler":
// the label printed a garbled customer without a word.
func TestParseOrderFileWindows1252NotReadAsGBK(t *testing.T) {
	for _, name := range []string{"Müller", "Jürgen Weiß", "Café Zoë"} {
		data := append([]byte("order,customer,parcels\n4711,"), mustEncode(t, name, false)...)
		data = append(data, ",1\n"...)
		f, err := ParseOrderFile(data, EncodingAuto, nil)
		if err != nil {
			t.Fatal(err)
		}
		if f.Encoding != EncodingWindows1252 || len(f.Orders) != 1 || f.Orders[0].Customer != name {
			t.Errorf("%s: read as %s: %+v", name, f.Encoding, f.Orders)
		}
	}
	// A Chinese file with one rare character (a GBK/3 pair whose trail
	// byte is in ASCII's range) is still GBK.
	data := mustEncode(t, "订单号,客户,件数\n1,张伟,1\n2,王芳,2\n3,李娜丂,1\n", true)
	f, err := ParseOrderFile(data, EncodingAuto, nil)
	if err != nil || f.Encoding != EncodingGBK || len(f.Orders) != 3 || f.Orders[2].Customer != "李娜丂" {
		t.Fatalf("GBK with a rare character: %v %+v", err, f)
	}
}

// A file saved as "CSV (Macintosh)" ends its lines with CR alone: it was
// read as one long header and refused as "a header but no orders".
func TestParseOrderFileCROnlyLineEnds(t *testing.T) {
	f, err := ParseOrderFile([]byte("order,customer,parcels\r4711,Bob,2\r4712,Ann,1\r"), EncodingAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Orders) != 2 || f.Orders[0].Number != "4711" || f.Orders[1].Line != 3 || len(f.Refused) != 0 {
		t.Fatalf("%+v", f)
	}
}

// Excel's "Unicode Text" is UTF-16: the clerk was told the header
// ("ÿþo r d e r") names no order column.
func TestParseOrderFileUTF16IsNamed(t *testing.T) {
	for _, bom := range []string{"\xff\xfe", "\xfe\xff"} {
		_, err := ParseOrderFile([]byte(bom+"o\x00r\x00d\x00e\x00r\x00\n\x00"), EncodingAuto, nil)
		if err == nil || !strings.Contains(err.Error(), "UTF-16") || !strings.Contains(err.Error(), "CSV UTF-8") {
			t.Errorf("%q: %v", bom, err)
		}
	}
}

// An order number typed with a Chinese input method comes in full width
// ("Ａ1"): it is the order A1, once in a file and once at the desk.
func TestParseOrderFileFullWidthOrderNumber(t *testing.T) {
	f, err := ParseOrderFile([]byte("order,customer,parcels\nＡ１２,Bob,1\na12,Bob,1\n"), EncodingAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Orders) != 1 || f.Orders[0].Number != "A12" || len(f.Refused) != 1 || !strings.Contains(f.Refused[0].Message, "line 2 already") {
		t.Fatalf("%+v", f)
	}
}

// An Excel workbook picked instead of its CSV was "cannot be read in
// that encoding" (.xlsx) or a header of garbage naming no order column
// (.xls): the clerk is told it is a workbook and how to save the CSV.
func TestParseOrderFileWorkbookIsNamed(t *testing.T) {
	for _, data := range []string{"PK\x03\x04\x14\x00\x06\x00[Content_Types].xml", "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00\x00"} {
		for _, enc := range []string{EncodingAuto, EncodingUTF8, EncodingGBK} {
			_, err := ParseOrderFile([]byte(data), enc, nil)
			if err == nil || !strings.Contains(err.Error(), "Excel workbook") || !strings.Contains(err.Error(), "CSV UTF-8") {
				t.Errorf("%.4q as %s: %v", data, enc, err)
			}
		}
	}
}

// "-2+3" (an order number, or a customer) is a sum Excel computes, yet a
// sign before a digit let it through as a number; "-12", "+49 30 1234"
// and "+49-30-1234" (a phone number in the notes) stay values.
func TestLooksLikeFormulaSignedSum(t *testing.T) {
	for s, want := range map[string]bool{"-2+3": true, "+1*2": true, "-1/2": true, "+2^8": true, "-3=3": true, "-1+(2)": true,
		"-12": false, "+3": false, "-3.5": false, "+49 30 1234": false, "+49-30-1234": false, "+49 (0)30 1234": false, "- Tor 2": false, "4711-2+3": false} {
		if got := looksLikeFormula(s); got != want {
			t.Errorf("looksLikeFormula(%q) = %v, want %v", s, got, want)
		}
	}
}

// An invisible character in an order number (a zero-width space pasted
// from a web page, a BOM where two exported files were joined, a soft
// hyphen) made "ZW1" four different orders, four labels: it is dropped.
func TestParseOrderFileInvisibleCharactersInOrderNumber(t *testing.T) {
	f, err := ParseOrderFile([]byte("order,customer,parcels\nZW1,x,1\nZW1\u200b,x,1\n\ufeffZW1,x,1\nZW\u00ad1,x,1\nZW\u20602,x,1\n"), EncodingAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Orders) != 2 || f.Orders[0].Number != "ZW1" || f.Orders[1].Number != "ZW2" || len(f.Refused) != 3 {
		t.Fatalf("%+v", f)
	}
	// A direction mark is still refused, by name, not dropped.
	f, _ = ParseOrderFile([]byte("order,customer,parcels\nZW\u202e1,x,1\n"), EncodingAuto, nil)
	if len(f.Refused) != 1 || !strings.Contains(f.Refused[0].Message, "direction mark") {
		t.Fatalf("%+v", f)
	}
}

// A file over MaxOrderFileBytes (the window reads one byte more than the
// limit) is refused whole, by reason code, in both languages.
func TestParseOrderFileTooLarge(t *testing.T) {
	_, err := ParseOrderFile(make([]byte, MaxOrderFileBytes+1), EncodingAuto, nil)
	var fe *OrderFileError
	if !errors.As(err, &fe) || fe.Reason != ReasonFileTooLarge || fe.Text("en") != "the order file is 5242881 bytes, over 5242880: split it into smaller files" ||
		fe.Text("zh-CN") != "订单文件有 5242881 字节，超过 5242880：请把它拆成几个较小的文件" {
		t.Fatalf("err %#v", err)
	}
}

type unprintable struct{ r rune }

func (u unprintable) Error() string {
	return "the customer name holds a character the label fonts cannot print"
}
func (u unprintable) UnprintableRune() rune { return u.r }

// Every refusal of a row has its reason code and its Chinese text (the
// window's and the command line's in a Chinese locale); English stays.
func TestOrderRowRefusalsInBothLanguages(t *testing.T) {
	data := "order,customer,parcels,notes\n" +
		",Nobody,1\n" + // 2
		"4713,Kim,0\n" + // 3
		"4714,=1+2,1\n" + // 4
		"4715,Lee,1\n" + "４７１５,Lee,1\n" + // 5, 6
		strings.Repeat("9", 41) + ",Lee,1\n" + // 7
		"4716,\"Li\u0007\",1\n" + // 8
		"4717,\"Dana\u202e\",1\n" + // 9
		"4718,Snow☃,1\n" + // 10
		"4719,Mü\"ller,1\n" // 11
	f, err := ParseOrderFile([]byte(data), EncodingAuto, func(what, s string) error {
		if strings.ContainsRune(s, '☃') {
			return unprintable{'☃'}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line           int
		reason, zhPart string
	}{
		{2, ReasonOrderEmpty, "订单号为空"},
		{3, ReasonParcels, "件数“0”不是 1 到 999 之间的数字"},
		{4, ReasonFormula, "客户名“=1+2”看起来像电子表格公式"},
		{6, ReasonDuplicateOrder, "订单 4715 已在第 5 行"},
		{7, ReasonTooLong, "订单号有 41 个字符：最多 40 个"},
		{8, ReasonControlChar, "客户名含有控制字符（U+0007）"},
		{9, ReasonDirectionMark, "客户名含有不可见的方向标记（U+202E）"},
		{10, ReasonUnprintable, "客户名含有标签字体无法打印的字符 \"☃\"（U+2603）"},
		{11, ReasonCSVUnreadable, "这一行无法按 CSV 读取：不带引号的字段中出现了引号"},
	}
	if len(f.Refused) != len(want) {
		t.Fatalf("refused %+v, want %d rows", f.Refused, len(want))
	}
	for i, w := range want {
		r := f.Refused[i]
		if r.Line != w.line || r.Reason != w.reason || !strings.Contains(r.Text("zh-CN"), w.zhPart) ||
			!strings.HasPrefix(r.Text("zh-CN"), fmt.Sprintf("第 %d 行：", w.line)) || r.Text("en") != r.Error() || r.Message == "" {
			t.Errorf("refused[%d] = %+v (%q), want line %d, reason %s, Chinese with %q", i, r, r.Text("zh-CN"), w.line, w.reason, w.zhPart)
		}
	}
}

// Every refusal of a whole file has its reason code and its Chinese text.
func TestOrderFileRefusalsInBothLanguages(t *testing.T) {
	for _, tc := range []struct {
		data, enc, reason, zh string
	}{
		{"", EncodingAuto, ReasonEmptyFile, "订单文件是空的"},
		{"customer\nKim\n", EncodingAuto, ReasonNoOrderColumn, "标题行（customer）中没有订单号列"},
		{"order\n", EncodingAuto, ReasonNoOrders, "订单文件只有标题行，没有订单"},
		{"order,订单号\n1,2\n", EncodingAuto, ReasonColumnTwice, "标题行两次写了订单号列"},
		{"order\n1\n", "latin-9", ReasonUnknownEncoding, "编码 \"latin-9\" 不是 auto、utf-8、gbk、windows-1252 之一"},
		{"order\nM\xfcller\n", EncodingUTF8, ReasonNotUTF8File, "订单文件不是 UTF-8 文本"},
		{"order\n\x81\n", EncodingGBK, ReasonWrongEncoding, "订单文件无法按该编码读取"},
		{"\xff\xfeo\x00", EncodingAuto, ReasonUTF16, "订单文件是 UTF-16 文本"},
		{"PK\x03\x04", EncodingAuto, ReasonWorkbook, "订单文件是 Excel 工作簿"},
		{"order,\"x\n", EncodingAuto, ReasonHeaderUnreadable, "订单文件的标题行无法读取"},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			_, err := ParseOrderFile([]byte(tc.data), tc.enc, nil)
			var fe *OrderFileError
			if !errors.As(err, &fe) || fe.Reason != tc.reason || !strings.HasPrefix(OrderFileText(err, "zh-CN"), tc.zh) || OrderFileText(err, "en") != err.Error() {
				t.Errorf("err %v (%q), want reason %s, Chinese starting %q", err, OrderFileText(err, "zh-CN"), tc.reason, tc.zh)
			}
		})
	}
}
