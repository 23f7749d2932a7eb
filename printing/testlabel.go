package printing

import "io"

// testLabel is the scanner test label: a QR holding payload, titled.
func testLabel(payload string) []Label {
	return []Label{{Raw: payload, Title: "SCANNER TEST 扫码枪测试"}}
}

// WriteTestLabelPDF prints the scanner test label in the first position.
func WriteTestLabelPDF(w io.Writer, payload string, o Options) error {
	return WritePDF(w, testLabel(payload), o)
}

// WriteTestLabelZPL prints the scanner test label for a thermal printer.
func WriteTestLabelZPL(w io.Writer, payload string, o Options, dpi int) error {
	return WriteZPL(w, testLabel(payload), o, dpi)
}
