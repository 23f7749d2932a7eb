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

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/simplifiedchinese"
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

// OrderRowError is why a row of an order file is not taken.
type OrderRowError struct {
	Line    int    `json:"line"`
	Message string `json:"error"`
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
		return OrderFile{}, fmt.Errorf("the order file is %d bytes, over %d: split it into smaller files", len(data), MaxOrderFileBytes)
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
		return OrderFile{}, errors.New("the order file is empty: export the orders with a header line (order, customer, parcels, notes)")
	}
	if err != nil {
		return OrderFile{}, fmt.Errorf("the order file's header line cannot be read: %v", err)
	}
	cols, err := orderHeader(header)
	if err != nil {
		return OrderFile{}, err
	}
	seen := map[string]int{}
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
			f.Refused = append(f.Refused, OrderRowError{Line: line, Message: "the line cannot be read as CSV: " + csvReason(err)})
			continue
		}
		if blank(record) {
			continue
		}
		o, why := orderRow(record, cols, check)
		o.Line = line
		switch {
		case why != "":
			f.Refused = append(f.Refused, OrderRowError{Line: line, Message: why})
		case seen[strings.ToLower(o.Number)] > 0:
			f.Refused = append(f.Refused, OrderRowError{Line: line, Message: fmt.Sprintf("order %s is on line %d already: give each order one line", o.Number, seen[strings.ToLower(o.Number)])})
		default:
			seen[strings.ToLower(o.Number)] = line
			f.Orders = append(f.Orders, o)
		}
	}
	if len(f.Orders) == 0 && len(f.Refused) == 0 {
		return OrderFile{}, errors.New("the order file has a header but no orders")
	}
	return f, nil
}

// decodeOrderFile returns the file's text and the encoding it was read in.
func decodeOrderFile(data []byte, enc string) (string, string, error) {
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) || bytes.HasPrefix(data, []byte("\xd0\xcf\x11\xe0")) {
		return "", "", errors.New("the order file is an Excel workbook, not CSV: open it in Excel, save it as \"CSV UTF-8 (Comma delimited)\" and import that")
	}
	if bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff")) {
		return "", "", errors.New("the order file is UTF-16 text (Excel's \"Unicode Text\"): save it from Excel as \"CSV UTF-8 (Comma delimited)\" and import that")
	}
	switch strings.ToLower(strings.TrimSpace(enc)) {
	case "", EncodingAuto:
	case EncodingUTF8, "utf8":
		if !utf8.Valid(data) {
			return "", "", errors.New("the order file is not UTF-8 text: choose its encoding (gbk for Chinese Excel, windows-1252 for European Excel)")
		}
		return strings.TrimPrefix(string(data), UTF8BOM), EncodingUTF8, nil
	case EncodingGBK:
		s, err := decodeWith(simplifiedchinese.GBK, data)
		return s, EncodingGBK, err
	case EncodingWindows1252, "cp1252":
		s, err := decodeWith(charmap.Windows1252, data)
		return s, EncodingWindows1252, err
	default:
		return "", "", fmt.Errorf("encoding %q is not one of %s", enc, strings.Join(OrderFileEncodings, ", "))
	}
	if bytes.HasPrefix(data, []byte(UTF8BOM)) || utf8.Valid(data) {
		return strings.TrimPrefix(string(data), UTF8BOM), EncodingUTF8, nil
	}
	if s, err := decodeWith(simplifiedchinese.GBK, data); err == nil && gbkPairsLookChinese(data) && readsAsChinese(s) {
		return s, EncodingGBK, nil
	}
	s, err := decodeWith(charmap.Windows1252, data)
	return s, EncodingWindows1252, err
}

func decodeWith(e encoding.Encoding, data []byte) (string, error) {
	out, err := e.NewDecoder().Bytes(data)
	if err != nil || bytes.ContainsRune(out, utf8.RuneError) {
		return "", errors.New("the order file cannot be read in that encoding: choose another (utf-8, gbk, windows-1252)")
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
						return nil, fmt.Errorf("the header names the %s column twice (%q): keep one", col, h)
					}
					cols[col] = i
				}
			}
		}
	}
	if _, ok := cols["order"]; !ok {
		return nil, fmt.Errorf("the header line (%s) names no order number column: name it \"order\" or \"订单号\"", strings.Join(header, ", "))
	}
	return cols, nil
}

// orderRow reads one record; why says what is wrong with it.
func orderRow(record []string, cols map[string]int, check func(what, s string) error) (OrderRow, string) {
	field := func(col string) string {
		i, ok := cols[col]
		if !ok || i >= len(record) {
			return ""
		}
		return strings.TrimSpace(record[i])
	}
	// An order number typed with a Chinese input method is full width
	// ("Ａ１２"): it is the order A12.
	o := OrderRow{Number: orderNumber(field("order")), Customer: field("customer"), Notes: oneLine(field("notes")), Parcels: 1}
	if o.Number == "" {
		return o, "the order number is empty"
	}
	if err := CheckText("order number", o.Number, maxOrderNumberChars); err != nil {
		return o, err.Error()
	}
	if err := CheckText("customer name", o.Customer, MaxCustomerChars); err != nil {
		return o, err.Error()
	}
	if err := CheckText("notes", o.Notes, MaxOrderNotesChars); err != nil {
		return o, err.Error()
	}
	for _, t := range []struct{ what, s string }{{"order number", o.Number}, {"customer name", o.Customer}, {"notes", o.Notes}} {
		if looksLikeFormula(t.s) {
			return o, fmt.Sprintf("the %s %q looks like a spreadsheet formula: export the values, not the formulas", t.what, t.s)
		}
	}
	if p := field("parcels"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > MaxOrderParcels {
			return o, fmt.Sprintf("parcels %q is not a number from 1 to %d", p, MaxOrderParcels)
		}
		o.Parcels = n
	}
	if check != nil {
		for _, t := range []struct{ what, s string }{{"order number", o.Number}, {"customer name", o.Customer}} {
			if err := check(t.what, t.s); err != nil {
				return o, err.Error()
			}
		}
	}
	return o, ""
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
