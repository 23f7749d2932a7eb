package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOrdersImportSpeaksTheClerksLanguage: what is wrong with an order
// file (a bad row, the file as a whole) is said in English, and in
// Simplified Chinese under LANG=zh_CN.UTF-8; --json carries a reason code
// a script keeps for every refused row, and both texts. The messages were
// English only.
func TestOrdersImportSpeaksTheClerksLanguage(t *testing.T) {
	s := newStation(t)
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad := write("bad.csv", "order,customer,parcels\nSO-1,Weber,2\n,Nobody,1\n4713,Kim,10000\n4714,Lee,0\n4715,=SUM(A1:A2),1\nso-1,Weber,1\n")
	for _, tc := range []struct {
		lang      string
		rows      []string
		file, csv string
	}{
		{"", []string{
			"refused: line 3: the order number is empty",
			`refused: line 4: parcels "10000" is not a number from 1 to 999`,
			`refused: line 5: parcels "0" is not a number from 1 to 999`,
			`refused: line 6: the customer name "=SUM(A1:A2)" looks like a spreadsheet formula: export the values, not the formulas`,
			"refused: line 7: order so-1 is on line 2 already: give each order one line",
		}, "5 rows of the order file are refused (listed above)", "the order file is UTF-16 text"},
		{"zh_CN.UTF-8", []string{
			"拒绝：第 3 行：订单号为空",
			"拒绝：第 4 行：件数“10000”不是 1 到 999 之间的数字",
			"拒绝：第 5 行：件数“0”不是 1 到 999 之间的数字",
			"拒绝：第 6 行：客户名“=SUM(A1:A2)”看起来像电子表格公式：请导出数值，而不是公式",
			"拒绝：第 7 行：订单 so-1 已在第 2 行：每个订单只写一行",
		}, "订单文件有 5 行被拒绝（见上）", "订单文件是 UTF-16 文本"},
	} {
		s.vars = map[string]string{"LANG": tc.lang}
		code, out, errOut := s.run(t, "orders", "import", bad)
		for _, want := range tc.rows {
			if !strings.Contains(out, want) {
				t.Errorf("LANG=%q: the output does not say %q:\n%s", tc.lang, want, out)
			}
		}
		if code == ExitOK || !strings.Contains(errOut, tc.file) {
			t.Errorf("LANG=%q: exit %d, stderr %q, want it to say %q", tc.lang, code, errOut, tc.file)
		}
		utf16 := write("unicode.txt", "\xff\xfeo\x00r\x00d\x00e\x00r\x00\n\x00")
		if code, _, errOut := s.run(t, "orders", "import", utf16); code == ExitOK || !strings.Contains(errOut, tc.csv) {
			t.Errorf("LANG=%q: a UTF-16 file: exit %d, %q, want it to say %q", tc.lang, code, errOut, tc.csv)
		}
	}
	// An Excel workbook picked instead of its CSV, in Chinese.
	s.vars = map[string]string{"LANG": "zh_CN.UTF-8"}
	xlsx := write("orders.xlsx", "PK\x03\x04\x14\x00\x06\x00[Content_Types].xml")
	if code, _, errOut := s.run(t, "orders", "import", xlsx); code == ExitOK || !strings.Contains(errOut, "订单文件是 Excel 工作簿，不是 CSV") {
		t.Errorf("a workbook in Chinese: exit %d, %q", code, errOut)
	}
	// A file refused whole: --json names the reason too.
	var whole struct {
		Refused struct {
			Reason  string `json:"reason"`
			Chinese string `json:"error_zh"`
		} `json:"refused_file"`
	}
	code, out, _ := s.run(t, "orders", "import", xlsx, "--json")
	if err := json.Unmarshal([]byte(out), &whole); err != nil || code == ExitOK || whole.Refused.Reason != "excel_workbook" || whole.Refused.Chinese == "" {
		t.Errorf("a workbook --json: exit %d, %q (%v), want reason excel_workbook", code, out, err)
	}
	// A huge file (over 5 MiB) is refused before it is read, in Chinese
	// and by reason code.
	huge := write("huge.csv", "order\n")
	if err := os.Truncate(huge, 5<<20+1); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := s.run(t, "orders", "import", huge); code == ExitOK || !strings.Contains(errOut, "订单文件 "+huge+" 有 5242881 字节，超过 5242880：请把它拆成几个较小的文件") {
		t.Errorf("a huge file in Chinese: exit %d, %q", code, errOut)
	}
	if code, out, _ := s.run(t, "orders", "import", huge, "--json"); code == ExitOK || !strings.Contains(out, `"reason": "file_too_large"`) {
		t.Errorf("a huge file --json: exit %d, %q", code, out)
	}
	_, out, _ = s.run(t, "orders", "import", bad, "--json")
	var res struct {
		Refused []struct {
			Line    int    `json:"line"`
			Reason  string `json:"reason"`
			Field   string `json:"field"`
			Error   string `json:"error"`
			Chinese string `json:"error_zh"`
		} `json:"refused"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	want := []string{"order_number_empty", "parcels_out_of_range", "parcels_out_of_range", "formula", "duplicate_order"}
	if len(res.Refused) != len(want) {
		t.Fatalf("--json refused %+v, want %d rows", res.Refused, len(want))
	}
	for i, w := range want {
		if r := res.Refused[i]; r.Reason != w || r.Error == "" || r.Chinese == "" || r.Line != i+3 {
			t.Errorf("--json refused[%d] = %+v, want reason %s on line %d with both texts", i, r, w, i+3)
		}
	}
}
