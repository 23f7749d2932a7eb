package app

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
)

// A day's pickup orders, as a warehouse system or Excel exports them: one
// row per order with its number, the customer's name, how many parcels it
// has and optional notes. Each parcel gets one label carrying the order.
// The file is read whole before anything is issued, and every bad row is
// named with its line and why, so the clerk fixes the file once.

// OrderRow is one order of an order file.
type OrderRow struct {
	Line     int    `json:"line"` // the file's line of the row (the header is line 1)
	Number   string `json:"order"`
	Customer string `json:"customer"`
	Parcels  int    `json:"parcels"`
	Notes    string `json:"notes,omitempty"`
}

// OrderRowError is why a row of an order file is not taken: its line,
// a reason code a script keeps (Reason…), the column it is about, and the
// reason in English (Error, Message) and Simplified Chinese (Text).
type OrderRowError struct {
	Line    int    `json:"line"`
	Reason  string `json:"reason"`
	Field   string `json:"field,omitempty"` // "order number", "customer name", "parcels", "notes"
	Message string `json:"error"`
	Chinese string `json:"error_zh,omitempty"`
}

func (e OrderRowError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Message) }

// OrderFile is an order file read: the encoding it was read in, the rows
// taken and the rows refused.
type OrderFile struct {
	Encoding string          `json:"encoding"`
	Orders   []OrderRow      `json:"orders"`
	Refused  []OrderRowError `json:"refused"`
}

// Parcels is the number of labels the file's orders need.
func (f OrderFile) Parcels() int {
	n := 0
	for _, o := range f.Orders {
		n += o.Parcels
	}
	return n
}

// Order file encodings: what ParseOrderFile takes as its encoding.
const (
	EncodingAuto        = "auto"
	EncodingUTF8        = "utf-8"
	EncodingGBK         = "gbk"          // Chinese Excel's CSV
	EncodingWindows1252 = "windows-1252" // European Excel's CSV
)

// OrderFileEncodings lists the encodings an order file may be read in.
var OrderFileEncodings = []string{EncodingAuto, EncodingUTF8, EncodingGBK, EncodingWindows1252}

// Limits of an order file.
const (
	MaxOrderParcels     = 999     // parcels of one order
	MaxOrderFileBytes   = 5 << 20 // a day's orders, with room to spare
	MaxCustomerChars    = 80
	MaxOrderNotesChars  = 200
	maxOrderNumberChars = 40 // an order number prints on the label
)

// The columns of an order file, found by their header in English or
// Chinese, any case; extra columns are ignored.
var orderColumns = map[string][]string{
	"order":    {"order", "order number", "order no", "order no.", "order_no", "order_number", "order id", "订单号", "订单编号", "订单"},
	"customer": {"customer", "customer name", "name", "recipient", "客户", "客户名称", "客户姓名", "收货人", "姓名"},
	"parcels":  {"parcels", "parcel count", "packages", "pieces", "count", "qty", "quantity", "件数", "包裹数", "包裹", "数量"},
	"notes":    {"notes", "note", "remarks", "comment", "备注", "说明"},
}

// ParseOrderFile reads an order file in the encoding given (EncodingAuto:
// a UTF-8 byte-order mark or valid UTF-8 is UTF-8; else GBK when the text
// reads as Chinese, else Windows-1252). The separator is the header line's
// comma, semicolon (European Excel) or tab. check, when not nil, refuses
// text the labels cannot carry (printing.CheckPrintable). An error is for
// the file as a whole (no header, no order column, not text); bad rows are
// in Refused.
func ParseOrderFile(data []byte, enc string, check func(what, s string) error) (OrderFile, error) {
	if len(data) > MaxOrderFileBytes {
		return OrderFile{}, TooLargeError("", int64(len(data)))
	}
	text, used, err := decodeOrderFile(data, enc)
	if err != nil {
		return OrderFile{}, err
	}
	// "CSV (Macintosh)" ends its lines with CR alone; Go's CSV reader
	// takes only LF (or CR LF) as a line end.
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	f := OrderFile{Encoding: used, Orders: []OrderRow{}, Refused: []OrderRowError{}}
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = separatorOf(text)
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return OrderFile{}, fileError(ReasonEmptyFile, "the order file is empty: export the orders with a header line (order, customer, parcels, notes)",
			"订单文件是空的：导出订单时请带上标题行（订单号、客户、件数、备注）")
	}
	if err != nil {
		return OrderFile{}, fileError(ReasonHeaderUnreadable, fmt.Sprintf("the order file's header line cannot be read: %v", err),
			fmt.Sprintf("订单文件的标题行无法读取：%s", csvChinese(err)))
	}
	cols, err := orderHeader(header)
	if err != nil {
		return OrderFile{}, err
	}
	seen := map[string]int{} // OrderKey → line
	for {
		record, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			re := rowError(ReasonCSVUnreadable, "", "the line cannot be read as CSV: "+csvReason(err), "这一行无法按 CSV 读取："+csvChinese(err))
			re.Line = line
			f.Refused = append(f.Refused, re)
			continue
		}
		if blank(record) {
			continue
		}
		if headerAgain(record, cols) {
			f.Refused = append(f.Refused, OrderRowError{Line: line, Reason: ReasonHeaderRepeated, Field: "order number",
				Message: "the line repeats the header line (two files joined into one?): delete it",
				Chinese: "这一行重复了标题行（两个文件拼成了一个？）：请删除这一行"})
			continue
		}
		o, why := orderRow(record, cols, check)
		o.Line = line
		key := OrderKey(o.Number)
		switch {
		case why != nil:
			why.Line = line
			f.Refused = append(f.Refused, *why)
		case seen[key] > 0:
			f.Refused = append(f.Refused, OrderRowError{Line: line, Reason: ReasonDuplicateOrder, Field: "order number",
				Message: fmt.Sprintf("order %s is on line %d already: give each order one line", o.Number, seen[key]),
				Chinese: fmt.Sprintf("订单 %s 已在第 %d 行：每个订单只写一行", o.Number, seen[key])})
		default:
			seen[key] = line
			f.Orders = append(f.Orders, o)
		}
	}
	if len(f.Orders) == 0 && len(f.Refused) == 0 {
		return OrderFile{}, fileError(ReasonNoOrders, "the order file has a header but no orders", "订单文件只有标题行，没有订单")
	}
	return f, nil
}

// decodeOrderFile returns the file's text and the encoding it was read in.
func decodeOrderFile(data []byte, enc string) (string, string, error) {
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) || bytes.HasPrefix(data, []byte("\xd0\xcf\x11\xe0")) {
		return "", "", fileError(ReasonWorkbook, "the order file is an Excel workbook, not CSV: open it in Excel, save it as \"CSV UTF-8 (Comma delimited)\" and import that",
			"订单文件是 Excel 工作簿，不是 CSV：请在 Excel 中打开它，另存为“CSV UTF-8（逗号分隔）”，再导入该文件")
	}
	if bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff")) {
		return "", "", fileError(ReasonUTF16, "the order file is UTF-16 text (Excel's \"Unicode Text\"): save it from Excel as \"CSV UTF-8 (Comma delimited)\" and import that",
			"订单文件是 UTF-16 文本（Excel 的“Unicode 文本”）：请在 Excel 中另存为“CSV UTF-8（逗号分隔）”，再导入该文件")
	}
	switch strings.ToLower(strings.TrimSpace(enc)) {
	case "", EncodingAuto:
	case EncodingUTF8, "utf8":
		if !utf8.Valid(data) {
			return "", "", fileError(ReasonNotUTF8File, "the order file is not UTF-8 text: choose its encoding (gbk for Chinese Excel, windows-1252 for European Excel)",
				"订单文件不是 UTF-8 文本：请选择它的编码（中文 Excel 为 gbk，欧洲 Excel 为 windows-1252）")
		}
		return strings.TrimPrefix(string(data), UTF8BOM), EncodingUTF8, nil
	case EncodingGBK:
		s, err := decodeWith(simplifiedchinese.GBK, data)
		return s, EncodingGBK, err
	case EncodingWindows1252, "cp1252":
		s, err := decodeWith(charmap.Windows1252, data)
		return s, EncodingWindows1252, err
	default:
		return "", "", fileError(ReasonUnknownEncoding, fmt.Sprintf("encoding %q is not one of %s", enc, strings.Join(OrderFileEncodings, ", ")),
			fmt.Sprintf("编码 %q 不是 %s 之一", enc, strings.Join(OrderFileEncodings, "、")))
	}
	if bytes.HasPrefix(data, []byte(UTF8BOM)) || utf8.Valid(data) {
		return strings.TrimPrefix(string(data), UTF8BOM), EncodingUTF8, nil
	}
	if s, err := decodeWith(simplifiedchinese.GBK, data); err == nil && gbkPairsLookChinese(data) && readsAsChinese(s) {
		if line := utf8HanLine(data); line > 0 {
			return "", "", mixedEncoding(data, line)
		}
		return s, EncodingGBK, nil
	}
	if line := max(utf8LatinLine(data), utf8HanLine(data)); line > 0 {
		return "", "", mixedEncoding(data, line)
	}
	s, err := decodeWith(charmap.Windows1252, data)
	return s, EncodingWindows1252, err
}

// mixedEncoding refuses a file whose line utf8Line is UTF-8 and another
// not: it names the first of those too.
func mixedEncoding(data []byte, utf8Line int) error {
	other := 0
	for n, line := range splitLines(data) {
		if !utf8.Valid(line) {
			other = n + 1
			break
		}
	}
	return fileError(ReasonMixedEncoding,
		fmt.Sprintf("the order file mixes encodings: line %d is UTF-8, line %d is not (two files joined, or a line added in another editor): save the whole file from Excel as \"CSV UTF-8 (Comma delimited)\" and import that, or choose its encoding with --encoding", utf8Line, other),
		fmt.Sprintf("订单文件混用了多种编码：第 %d 行是 UTF-8，第 %d 行不是（两个文件拼在一起，或在别的编辑器中添加了一行）：请在 Excel 中把整个文件另存为“CSV UTF-8（逗号分隔）”再导入，或用 --encoding 指定编码", utf8Line, other))
}

// utf8HanLine is the first line (from 1) of a file that is not UTF-8 as a
// whole that is UTF-8 Chinese ("张伟" is E5 BC A0 E4 BC 9F) and not
// GB2312 (0: none). Chinese Excel's GBK text is GB2312 pairs (both bytes
// A1 or above) nearly always, and a line of them is almost never valid
// UTF-8 too; UTF-8's continuation bytes (80–BF) read as GBK make pairs
// outside GB2312 ("寮犱紵").
func utf8HanLine(data []byte) int {
	for n, line := range splitLines(data) {
		if utf8.Valid(line) && !gb2312(line) && strings.IndexFunc(string(line), func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0 {
			return n + 1
		}
	}
	return 0
}

// gb2312 reports whether every byte above ASCII of line is in a GB2312
// pair (lead A1–F7, trail A1–FE).
func gb2312(line []byte) bool {
	for i := 0; i < len(line); i++ {
		if line[i] < 0x80 {
			continue
		}
		if line[i] < 0xa1 || line[i] > 0xf7 || i+1 == len(line) || line[i+1] < 0xa1 || line[i+1] == 0xff {
			return false
		}
		i++
	}
	return true
}

// splitLines splits data at LF, CR LF and CR alone (Excel's "CSV
// (Macintosh)"), as ParseOrderFile reads lines.
func splitLines(data []byte) [][]byte {
	return bytes.Split(bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n")), []byte("\n"))
}

// utf8LatinLine is the first line (from 1) of a file that is not UTF-8 as
// a whole holding a UTF-8 letter of a European language (U+00C0–U+024F:
// "ü" is C3 BC): in Windows-1252 those two bytes are "Ã¼", which no
// clerk's text holds, so the line is UTF-8 beside lines that are not. 0:
// none.
func utf8LatinLine(data []byte) int {
	for n, line := range splitLines(data) {
		for i := 0; i+1 < len(line); i++ {
			if line[i] >= 0xc3 && line[i] <= 0xc9 && line[i+1] >= 0x80 && line[i+1] <= 0xbf &&
				(i+2 == len(line) || line[i+2] < 0x80 || line[i+2] >= 0xc0) {
				return n + 1
			}
		}
	}
	return 0
}

func decodeWith(e encoding.Encoding, data []byte) (string, error) {
	out, err := e.NewDecoder().Bytes(data)
	if err != nil || bytes.ContainsRune(out, utf8.RuneError) {
		return "", fileError(ReasonWrongEncoding, "the order file cannot be read in that encoding: choose another (utf-8, gbk, windows-1252)",
			"订单文件无法按该编码读取：请换一种编码（utf-8、gbk、windows-1252）")
	}
	return string(out), nil
}

// readsAsChinese: most letters beyond ASCII are Han, as in a Chinese
// file; Windows-1252 text read as GBK gives Han too, but mixed with
// symbols and Hangul-range oddities far more often than not.
func readsAsChinese(s string) bool {
	han, other := 0, 0
	for _, r := range s {
		switch {
		case r < 0x80:
		case unicode.Is(unicode.Han, r) || unicode.Is(unicode.P, r) || r == '\u3000':
			han++
		default:
			other++
		}
	}
	return han > 0 && other*10 <= han
}

// gbkPairsLookChinese: Chinese text is nearly all GB2312, whose pairs
// have both bytes above ASCII; a pair whose second byte is an ASCII
// letter is a rare GBK character, or (far more often) Windows-1252's
// "\xfcl" of "Müller" read as one character.
func gbkPairsLookChinese(data []byte) bool {
	high, low := 0, 0
	for i := 0; i < len(data); i++ {
		if data[i] < 0x81 || data[i] == 0xff || i+1 == len(data) {
			continue
		}
		if data[i+1] < 0x80 {
			low++
		} else {
			high++
		}
		i++
	}
	return high > 0 && low*10 <= high
}

// separatorOf is the header line's separator: tab, semicolon or comma.
func separatorOf(text string) rune {
	first, _, _ := strings.Cut(text, "\n")
	switch {
	case strings.Count(first, "\t") > 0 && strings.Count(first, "\t") >= strings.Count(first, ","):
		return '\t'
	case strings.Count(first, ";") > strings.Count(first, ","):
		return ';'
	}
	return ','
}

// orderHeader maps the columns the header names; the order number is
// required, the others optional (parcels: 1 when absent).
func orderHeader(header []string) (map[string]int, error) {
	cols := map[string]int{}
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, UTF8BOM)))
		for col, names := range orderColumns {
			for _, n := range names {
				if name == n {
					if _, dup := cols[col]; dup {
						return nil, fileError(ReasonColumnTwice, fmt.Sprintf("the header names the %s column twice (%q): keep one", col, h),
							fmt.Sprintf("标题行两次写了%s列（%q）：只保留一列", chineseColumn[col], h))
					}
					cols[col] = i
				}
			}
		}
	}
	if _, ok := cols["order"]; !ok {
		return nil, fileError(ReasonNoOrderColumn, fmt.Sprintf("the header line (%s) names no order number column: name it \"order\" or \"订单号\"", strings.Join(header, ", ")),
			fmt.Sprintf("标题行（%s）中没有订单号列：请把该列命名为“订单号”或“order”", strings.Join(header, ", ")))
	}
	return cols, nil
}

// orderRow reads one record; why, when not nil, says what is wrong with
// it (its Line is the caller's to set).
func orderRow(record []string, cols map[string]int, check func(what, s string) error) (OrderRow, *OrderRowError) {
	field := func(col string) string {
		i, ok := cols[col]
		if !ok || i >= len(record) {
			return ""
		}
		return strings.TrimSpace(record[i])
	}
	refuse := func(e OrderRowError) (OrderRow, *OrderRowError) { return OrderRow{}, &e }
	// An order number typed with a Chinese input method is full width
	// ("Ａ１２"): it is the order A12.
	o := OrderRow{Number: orderNumber(field("order")), Customer: field("customer"), Notes: oneLine(field("notes")), Parcels: 1}
	if o.Number == "" {
		return refuse(rowError(ReasonOrderEmpty, "order number", "the order number is empty", "订单号为空"))
	}
	texts := []struct {
		what, s string
		max     int
	}{{"order number", o.Number, maxOrderNumberChars}, {"customer name", o.Customer, MaxCustomerChars}, {"notes", o.Notes, MaxOrderNotesChars}}
	for _, t := range texts {
		if err := CheckText(t.what, t.s, t.max); err != nil {
			return refuse(checkError(t.what, err))
		}
	}
	for _, t := range texts {
		if looksLikeFormula(t.s) {
			return refuse(rowError(ReasonFormula, t.what,
				fmt.Sprintf("the %s %q looks like a spreadsheet formula: export the values, not the formulas", t.what, t.s),
				fmt.Sprintf("%s“%s”看起来像电子表格公式：请导出数值，而不是公式", chineseField[t.what], t.s)))
		}
	}
	if p := field("parcels"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > MaxOrderParcels {
			return refuse(rowError(ReasonParcels, "parcels",
				fmt.Sprintf("parcels %q is not a number from 1 to %d", p, MaxOrderParcels),
				fmt.Sprintf("件数“%s”不是 1 到 %d 之间的数字", p, MaxOrderParcels)))
		}
		o.Parcels = n
	}
	if check != nil {
		for _, t := range texts[:2] {
			if err := check(t.what, t.s); err != nil {
				return refuse(checkError(t.what, err))
			}
		}
	}
	return o, nil
}

// orderNumber is an order number as the file gives it, full width folded
// ("Ａ１２" is A12) and invisible characters dropped (a zero-width space
// pasted from a web page, a BOM where two files were joined, a soft
// hyphen): "ZW1\u200b" is the order ZW1, not another. A direction mark
// stays, for CheckText to refuse by name.
func orderNumber(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) && !unicode.Is(unicode.Bidi_Control, r) {
			return -1
		}
		return r
	}, width.Fold.String(s))
	return strings.TrimSpace(s)
}

// OrderKey is an order number as a clerk reads it, the one form two
// numbers are compared in (within a file, and against the orders issued
// before): full width read narrow ("Ａ１２" is A12), invisible
// characters dropped (orderNumber), composed (an "a" and a combining
// diaeresis is "ä") and case folded ("So-7" is SO-7, "ä1" is Ä1, "ß" is
// "ss"). The order keeps the number as the file gives it; the key only
// compares.
func OrderKey(number string) string {
	// Unicode's full case folding, the same in every locale; a Caser is
	// not to be shared between goroutines.
	return cases.Fold().String(norm.NFC.String(orderNumber(number)))
}

// oneLine folds the lines of a notes cell Excel wrapped (Alt+Enter) into
// one ("Tor 2 / bitte klingeln"): a note is no reason to refuse a file.
func oneLine(s string) string {
	lines := strings.FieldsFunc(strings.ReplaceAll(s, "\r\n", "\n"), func(r rune) bool { return r == '\n' || r == '\r' })
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, " / ")
}

// looksLikeFormula: a cell Excel would compute (=SUM(…), @A1, +A1, -A1)
// rather than a value; a sign before a digit is a number or an order
// number ("-12" stays) unless an operator follows ("-2+3"), one before a
// space a dash in a note.
func looksLikeFormula(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] {
	case '=', '@':
		return true
	case '+', '-':
		if len(s) > 1 && unicode.IsDigit(rune(s[1])) {
			// "-2+3" is a sum; a dash in "+49-30-1234" is a phone number's.
			return strings.ContainsAny(s[1:], "+*/^=")
		}
		return len(s) > 1 && s[1] != ' '
	}
	return false
}

// headerAgain: the record's order number cell is a header of the order
// column ("order", "Order Number", "订单号"), as where two exported files
// were joined into one: a header line, not an order.
func headerAgain(record []string, cols map[string]int) bool {
	i := cols["order"]
	if i >= len(record) {
		return false
	}
	cell := strings.ToLower(orderNumber(record[i]))
	for _, n := range orderColumns["order"] {
		if cell == n {
			return true
		}
	}
	return false
}

// blank: every field of the record is empty (a trailing line of Excel's).
func blank(record []string) bool {
	for _, f := range record {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}

// csvReason is a CSV parse error without its position (the line is given).
func csvReason(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
