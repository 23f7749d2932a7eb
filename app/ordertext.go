package app

import (
	"encoding/csv"
	"errors"
	"fmt"
	"strings"
)

// What is wrong with an order file, or with one of its rows, in the
// clerk's two languages (English, Simplified Chinese) and as a reason code
// a script keeps (--json's "reason"): the window shows the text of its
// language, the command line that of LANG. The codes are stable; the
// texts may be reworded.

// Reasons an order file is refused whole (OrderFileError.Reason).
const (
	ReasonFileTooLarge     = "file_too_large"
	ReasonWorkbook         = "excel_workbook"
	ReasonUTF16            = "utf16_text"
	ReasonNotUTF8File      = "not_utf8"
	ReasonWrongEncoding    = "wrong_encoding"
	ReasonUnknownEncoding  = "unknown_encoding"
	ReasonEmptyFile        = "empty_file"
	ReasonHeaderUnreadable = "header_unreadable"
	ReasonColumnTwice      = "column_twice"
	ReasonNoOrderColumn    = "no_order_column"
	ReasonNoOrders         = "no_orders"
	ReasonMixedEncoding    = "mixed_encoding"
)

// Reasons a row of an order file is refused (OrderRowError.Reason),
// beside CheckText's (ReasonTooLong, ReasonControlChar, …).
const (
	ReasonCSVUnreadable  = "csv_unreadable"
	ReasonOrderEmpty     = "order_number_empty"
	ReasonDuplicateOrder = "duplicate_order"
	ReasonParcels        = "parcels_out_of_range"
	ReasonFormula        = "formula"
	ReasonUnprintable    = "unprintable_character"
	ReasonHeaderRepeated = "header_repeated"
	ReasonOther          = "refused" // a check given to ParseOrderFile said no
)

// OrderFileError is why an order file is refused whole: Error is the
// English text, Chinese the same in Simplified Chinese.
type OrderFileError struct {
	Reason  string `json:"reason"`
	Message string `json:"error"`
	Chinese string `json:"error_zh"`
}

func (e *OrderFileError) Error() string { return e.Message }

// Text is the message in lang (a BCP 47 tag: "zh-CN" Chinese, else
// English).
func (e *OrderFileError) Text(lang string) string {
	if Chinese(lang) && e.Chinese != "" {
		return e.Chinese
	}
	return e.Message
}

// OrderFileText is err in lang when it is an order file's refusal
// (OrderFileError), else err's own text.
func OrderFileText(err error, lang string) string {
	var fe *OrderFileError
	if errors.As(err, &fe) {
		return fe.Text(lang)
	}
	return ErrorMessage(err)
}

// Chinese reports whether lang (a BCP 47 tag, "zh-CN", "zh-Hans", "zh")
// asks for Chinese.
func Chinese(lang string) bool {
	return lang == "zh" || strings.HasPrefix(lang, "zh-") || strings.HasPrefix(lang, "zh_")
}

func fileError(reason, en, zh string) *OrderFileError {
	return &OrderFileError{Reason: reason, Message: en, Chinese: zh}
}

// Why is the row's reason in lang, without its line.
func (e OrderRowError) Why(lang string) string {
	if Chinese(lang) && e.Chinese != "" {
		return e.Chinese
	}
	return e.Message
}

// Text is the row's refusal in lang with its line: "line 3: the order
// number is empty", "第 3 行：订单号为空".
func (e OrderRowError) Text(lang string) string {
	if Chinese(lang) && e.Chinese != "" {
		return fmt.Sprintf("第 %d 行：%s", e.Line, e.Chinese)
	}
	return e.Error()
}

// RefusedRowsText is what an import of a file with n refused rows says
// (ErrOrderFileRefused), in lang.
func RefusedRowsText(n int, lang string) string {
	if Chinese(lang) {
		return fmt.Sprintf("订单文件有 %d 行被拒绝（见上）：请修正后重新导入整个文件；未发放任何标签", n)
	}
	return fmt.Sprintf("%s of the order file %s refused (listed above): fix %s and import the file again; nothing was issued",
		Plural(n, "row", "rows"), isAre(n), itThem(n))
}

// chineseField names an order file's column in Chinese.
var chineseField = map[string]string{
	"order number":  "订单号",
	"customer name": "客户名",
	"notes":         "备注",
	"parcels":       "件数",
}

// rowError is a row's refusal: its reason code, the column it is about
// ("" for the row), and its texts.
func rowError(reason, field, en, zh string) OrderRowError {
	return OrderRowError{Reason: reason, Field: field, Message: en, Chinese: zh}
}

// checkError turns a refusal of CheckText (TextError) or of the check
// ParseOrderFile was given (an error with UnprintableRune, such as
// printing.CheckPrintable's) into a row's refusal in both languages.
func checkError(field string, err error) OrderRowError {
	zhField := chineseField[field]
	var te *TextError
	if errors.As(err, &te) {
		var zh string
		switch te.Reason {
		case ReasonNotUTF8:
			zh = fmt.Sprintf("%s不是有效的文本（UTF-8）", zhField)
		case ReasonTooLong:
			zh = fmt.Sprintf("%s有 %d 个字符：最多 %d 个", zhField, te.Chars, te.Max)
		case ReasonControlChar:
			zh = fmt.Sprintf("%s含有控制字符（%U）：请写成一行纯文本", zhField, te.Rune)
		case ReasonDirectionMark:
			zh = fmt.Sprintf("%s含有不可见的方向标记（%U），在别的屏幕上可能倒着显示：请去掉它重新输入", zhField, te.Rune)
		case ReasonLineBreak:
			zh = fmt.Sprintf("%s含有换行符（%U）：请写成一行纯文本", zhField, te.Rune)
		}
		return rowError(te.Reason, field, err.Error(), zh)
	}
	var un interface{ UnprintableRune() rune }
	if errors.As(err, &un) {
		r := un.UnprintableRune()
		return rowError(ReasonUnprintable, field, err.Error(),
			fmt.Sprintf("%s含有标签字体无法打印的字符 %q（%U）：请去掉这个字符重新输入", zhField, string(r), r))
	}
	return rowError(ReasonOther, field, err.Error(), "")
}

// csvChinese is the CSV reader's complaint in Chinese, when it is one of
// the reader's own.
func csvChinese(err error) string {
	switch {
	case errors.Is(err, csv.ErrBareQuote):
		return "不带引号的字段中出现了引号 \""
	case errors.Is(err, csv.ErrQuote):
		return "带引号的字段中引号 \" 多余或缺少"
	}
	return csvReason(err)
}

// chineseColumn names an order file's column (orderColumns' keys) in
// Chinese.
var chineseColumn = map[string]string{"order": "订单号", "customer": "客户", "parcels": "件数", "notes": "备注"}

// TooLargeError refuses an order file of size bytes, over
// MaxOrderFileBytes; path names it when given.
func TooLargeError(path string, size int64) *OrderFileError {
	name := "the order file"
	zhName := "订单文件"
	if path != "" {
		name += " " + path
		zhName += " " + path + " "
	}
	return fileError(ReasonFileTooLarge, fmt.Sprintf("%s is %d bytes, over %d: split it into smaller files", name, size, MaxOrderFileBytes),
		fmt.Sprintf("%s有 %d 字节，超过 %d：请把它拆成几个较小的文件", zhName, size, MaxOrderFileBytes))
}
