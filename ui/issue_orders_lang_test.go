package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
)

// TestWindowOrderPreviewSpeaksChinese: in a Chinese window the preview
// names each bad row of an order file in Chinese (it said the reason in
// English: "拒绝：第 3 行：the order number is empty"), and a file refused
// whole (UTF-16, an Excel workbook) is said in Chinese too; an English
// window keeps English.
func TestWindowOrderPreviewSpeaksChinese(t *testing.T) {
	badFile := []byte("order,customer,parcels\n4713,Weber,2\n,Nobody,1\n4714,Kim,10000\n4715,=SUM(A1:A2),1\n4716,Lee,0\n４７１３,Weber,1\n")
	for _, tc := range []struct {
		lang  string
		rows  []string
		utf16 string
		xlsx  string
	}{
		{"en", []string{
			"Refused: line 3: the order number is empty",
			`Refused: line 4: parcels "10000" is not a number from 1 to 999`,
			`Refused: line 5: the customer name "=SUM(A1:A2)" looks like a spreadsheet formula: export the values, not the formulas`,
			`Refused: line 6: parcels "0" is not a number from 1 to 999`,
			"Refused: line 7: order 4713 is on line 2 already: give each order one line",
			"Nothing will be issued",
		}, "unicode.txt: the order file is UTF-16 text", "orders.xlsx: the order file is an Excel workbook, not CSV"},
		{"zh", []string{
			"拒绝：第 3 行：订单号为空",
			"拒绝：第 4 行：件数“10000”不是 1 到 999 之间的数字",
			"拒绝：第 5 行：客户名“=SUM(A1:A2)”看起来像电子表格公式：请导出数值，而不是公式",
			"拒绝：第 6 行：件数“0”不是 1 到 999 之间的数字",
			"拒绝：第 7 行：订单 4713 已在第 2 行：每个订单只写一行",
			"不会发放任何标签",
		}, "unicode.txt：订单文件是 UTF-16 文本（Excel 的“Unicode 文本”）", "orders.xlsx：订单文件是 Excel 工作簿，不是 CSV"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			if tc.lang == "zh" {
				override = chineseTexts(t)
				defer func() { override = nil }()
			}
			h := newHarness(t)
			bad := h.previewed(t, "bad.csv", badFile)
			for _, w := range tc.rows {
				if !strings.Contains(bad.preview.Text, w) {
					t.Errorf("the preview lacks %q:\n%s", w, bad.preview.Text)
				}
			}
			fyne.DoAndWait(func() { bad.dialog.Hide() })
			for name, want := range map[string]string{
				"unicode.txt": tc.utf16,
				"orders.xlsx": tc.xlsx,
			} {
				data := "\xff\xfeo\x00r\x00d\x00e\x00r\x00\n\x00"
				if name == "orders.xlsx" {
					data = "PK\x03\x04\x14\x00\x06\x00[Content_Types].xml"
				}
				var imp *orderImport
				var status string
				fyne.DoAndWait(func() {
					imp = h.ui.issue.previewOrders(name, []byte(data))
					status = h.ui.issue.status.Text
				})
				if imp != nil || !strings.HasPrefix(status, want) {
					t.Errorf("%s: the screen says %q, want it to start %q", name, status, want)
				}
				fyne.DoAndWait(func() {
					if top := h.win.Canvas().Overlays().Top(); top != nil {
						top.Hide()
					}
				})
			}
		})
	}
}
