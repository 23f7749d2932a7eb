package cli

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// A day's orders from a CSV file: one label per parcel, the order number
// as the labels' ref, searchable by order number and customer; the same
// file imported again issues nothing twice and names what was issued.
func TestOrdersImportIssuesEachOrderOnce(t *testing.T) {
	s := newStation(t)
	path := filepath.Join(t.TempDir(), "orders.csv")
	if err := os.WriteFile(path, []byte("\ufeff订单号,客户,件数,备注\r\n4711,Müller,3,Tor 2\r\n4712,张伟,2,\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := s.run(t, "orders", "import", path, "--dry-run")
	if code != ExitOK || !strings.Contains(out, "to issue: order 4711, Müller, 3 labels") || !strings.Contains(out, "5 labels to issue") {
		t.Fatalf("dry run: exit %d\n%s%s", code, out, errOut)
	}
	var res struct {
		Encoding string `json:"encoding"`
		Labels   int    `json:"labels"`
		Issued   []struct {
			Order string `json:"order"`
			Batch int64  `json:"batch"`
		} `json:"issued"`
		Already []struct {
			Order string `json:"order"`
		} `json:"already_issued"`
	}
	s.mustJSON(t, &res, "orders", "import", path)
	if res.Encoding != "utf-8" || res.Labels != 5 || len(res.Issued) != 2 || res.Issued[0].Batch == 0 {
		t.Fatalf("import: %+v", res)
	}
	code, out, _ = s.run(t, "orders", "import", path)
	if code != ExitOK || !strings.Contains(out, "issued before: order 4711, Müller") || !strings.Contains(out, "0 labels issued; 2 orders issued before") {
		t.Errorf("the same file again: exit %d\n%s", code, out)
	}
	for _, q := range []string{"4711", "müller", "张"} {
		var codes []struct {
			Ref string `json:"ref"`
		}
		s.mustJSON(t, &codes, "search", q)
		want := map[string]int{"4711": 3, "müller": 3, "张": 2}[q]
		if len(codes) != want {
			t.Errorf("search %q: %d labels, want %d", q, len(codes), want)
		}
	}
}

// A file as Chinese Excel saves it (GBK) is told apart and read.
func TestOrdersImportReadsGBK(t *testing.T) {
	s := newStation(t)
	gbk, err := simplifiedchinese.GBK.NewEncoder().String("订单号,客户,件数\r\n4712,张伟,2\r\n")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "订单.csv")
	if err := os.WriteFile(path, []byte(gbk), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := s.run(t, "orders", "import", path)
	if code != ExitOK || !strings.Contains(out, "(gbk): 1 order, 2 parcels") || !strings.Contains(out, "issued: order 4712, 张伟, 2 labels") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

// A file with a bad row issues nothing, and names every bad row.
func TestOrdersImportRefusesAFileWithBadRows(t *testing.T) {
	s := newStation(t)
	path := filepath.Join(t.TempDir(), "orders.csv")
	if err := os.WriteFile(path, []byte("order;customer;parcels\n4711;Weber;2\n;Nobody;1\n4713;Kim;10000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := s.run(t, "orders", "import", path)
	for _, want := range []string{"refused: line 3: the order number is empty", `refused: line 4: parcels "10000" is not a number from 1 to 999`} {
		if !strings.Contains(out, want) {
			t.Errorf("output does not name %q:\n%s", want, out)
		}
	}
	if code == ExitOK || !strings.Contains(errOut, "2 rows of the order file are refused (listed above): fix them and import the file again; nothing was issued") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	var codes []any
	s.mustJSON(t, &codes, "search", "4711")
	if len(codes) != 0 {
		t.Errorf("%d labels of order 4711 issued from a refused file", len(codes))
	}
	if code, _, errOut := s.run(t, "orders", "import", filepath.Join(t.TempDir(), "none.csv")); code != ExitUsage || !strings.Contains(errOut, "there is no order file") {
		t.Errorf("a missing file: exit %d, %q", code, errOut)
	}
}

// An order whose labels this desk holds under its number (issued with
// 'issue --ref', at another desk, or here before a restore) is not issued
// again.
func TestOrdersImportKnowsLabelsOfTheOrder(t *testing.T) {
	s := newStation(t)
	if code, _, errOut := s.run(t, "issue", "--count", "2", "--ref", "4711"); code != ExitOK {
		t.Fatal(errOut)
	}
	path := filepath.Join(t.TempDir(), "orders.csv")
	if err := os.WriteFile(path, []byte("order,customer,parcels\n4711,Weber,2\n4712,Kim,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := s.run(t, "orders", "import", path)
	if code != ExitOK || !strings.Contains(out, "issued before: order 4711") || !strings.Contains(out, "1 label issued; 1 order issued before") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

// A scan of an order's label names the order, the customer and the
// parcel, and the parcels still waiting; --json carries the same.
func TestRedeemNamesTheOrdersParcel(t *testing.T) {
	s := newStation(t)
	path := filepath.Join(t.TempDir(), "orders.csv")
	if err := os.WriteFile(path, []byte("order,customer,parcels\n4711,Müller,3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := s.run(t, "orders", "import", path); code != ExitOK {
		t.Fatalf("import: exit %d\n%s%s", code, out, errOut)
	}
	var codes []struct {
		Code   string `json:"code"`
		Serial int    `json:"serial"`
	}
	s.mustJSON(t, &codes, "search", "4711")
	sort.Slice(codes, func(i, j int) bool { return codes[i].Serial < codes[j].Serial })
	code, out, errOut := s.run(t, "redeem", codes[1].Code)
	want := "Redeemed: hand over the parcel\nOrder 4711 · Müller · parcel 2 of 3\n2 parcels of this order still waiting: parcels 1 and 3\n"
	if code != ExitOK || !strings.HasPrefix(out, want) {
		t.Fatalf("redeem parcel 2: exit %d\n%s%s\nwant it to start\n%s", code, out, errOut, want)
	}
	s.run(t, "redeem", codes[0].Code)
	var v struct {
		Order struct {
			Order    string `json:"order"`
			Customer string `json:"customer"`
			Parcel   int    `json:"parcel"`
			Parcels  int    `json:"parcels"`
			Waiting  []int  `json:"waiting"`
		} `json:"order"`
	}
	s.mustJSON(t, &v, "redeem", codes[2].Code)
	if o := v.Order; o.Order != "4711" || o.Customer != "Müller" || o.Parcel != 3 || o.Parcels != 3 || len(o.Waiting) != 0 {
		t.Fatalf("redeem parcel 3 --json: %+v, want order 4711, Müller, parcel 3 of 3, none waiting", o)
	}
	code, out, _ = s.run(t, "check", codes[2].Code)
	if code == ExitOK || !strings.Contains(out, "Order 4711 · Müller · parcel 3 of 3\nthe order's other 2 parcels are handed over\n") {
		t.Fatalf("check parcel 3 again: exit %d\n%s", code, out)
	}
}

// An order file whose labels do not fit the day's serials is refused
// whole, by the dry run too, before anything is issued: issuing order by
// order stopped part-way, some orders issued and the rest not (found with
// a file of 200,000 orders the dry run said it would issue).
func TestOrdersImportRefusesAFileTheDaysSerialsCannotHold(t *testing.T) {
	s := newStation(t)
	if code, out, errOut := s.run(t, "settings", "--serial-digits", "3"); code != ExitOK {
		t.Fatalf("settings: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := s.run(t, "issue", "--count", "400"); code != ExitOK {
		t.Fatalf("issue: exit %d\n%s%s", code, out, errOut)
	}
	path := filepath.Join(t.TempDir(), "orders.csv")
	if err := os.WriteFile(path, []byte("order,customer,parcels\n4711,Müller,300\n4712,张伟,300\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const want = "the order file needs 600 labels but the daily serial of "
	for _, dry := range []bool{true, false} {
		args := []string{"orders", "import", path}
		if dry {
			args = append(args, "--dry-run")
		}
		code, out, errOut := s.run(t, args...)
		if code != ExitUsage || !strings.Contains(errOut, want) || !strings.Contains(errOut, "has room for 599 more (up to 999)") {
			t.Errorf("dry run %v: exit %d, want %d and %q\n%s%s", dry, code, ExitUsage, want, out, errOut)
		}
	}
	var codes []struct{}
	s.mustJSON(t, &codes, "search", "4711")
	if len(codes) != 0 {
		t.Errorf("order 4711: %d labels issued, want none", len(codes))
	}
	// What fits is issued: one order of 599 labels takes the last serials.
	if err := os.WriteFile(path, []byte("order,customer,parcels\n4713,Weber,599\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := s.run(t, "orders", "import", path); code != ExitOK || !strings.Contains(out, "599 labels issued") {
		t.Errorf("a file that fits: exit %d\n%s%s", code, out, errOut)
	}
}
