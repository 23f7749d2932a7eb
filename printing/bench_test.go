package printing

import (
	"bytes"
	"fmt"
	"image/png"
	"io"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
	"github.com/skip2/go-qrcode"
)

// BenchmarkPDF10kL7651 writes 10,000 labels on L7651 sheets with vector QR
// codes (target ≤ 2 s and ≤ 5 MB) and, in the same run, the same sheets
// with each QR embedded as a 256 px PNG, for comparison.
func BenchmarkPDF10kL7651(b *testing.B) {
	labels := testLabels(b, 10_000, "")
	tmpl, _ := FindTemplate("", "L7651")
	o := Options{Template: tmpl, Created: time.Unix(0, 0)}
	var vector, image time.Duration
	var vectorSize, imageSize int
	for i := 0; i < b.N; i++ {
		var buf bytes.Buffer
		start := time.Now()
		if err := WritePDF(&buf, labels, o); err != nil {
			b.Fatal(err)
		}
		vector += time.Since(start)
		vectorSize = buf.Len()

		b.StopTimer()
		buf.Reset()
		start = time.Now()
		if err := writePNGLabels(&buf, labels, o); err != nil {
			b.Fatal(err)
		}
		image += time.Since(start)
		imageSize = buf.Len()
		b.StartTimer()
	}
	b.ReportMetric(vector.Seconds()/float64(b.N), "vector_s")
	b.ReportMetric(float64(vectorSize)/1e6, "vector_MB")
	b.ReportMetric(image.Seconds()/float64(b.N), "png_s")
	b.ReportMetric(float64(imageSize)/1e6, "png_MB")
	b.ReportMetric(image.Seconds()/vector.Seconds(), "png_vs_vector_time")
}

// writePNGLabels is the alternative we compare against: each QR rendered to
// a PNG and embedded as an image, with the same text layout.
func writePNGLabels(w io.Writer, labels []Label, o Options) error {
	t := o.Template
	pdf := newPDF(t, o.Created, nil)
	for i, l := range labels {
		if i%t.PerPage() == 0 {
			pdf.AddPage()
		}
		lay, err := layout(t, l, qrcode.Medium, 0)
		if err != nil {
			return err
		}
		q, _ := qrcode.New(l.Code.String(), qrcode.Medium)
		img := q.Image(256)
		var pngBuf bytes.Buffer
		png.Encode(&pngBuf, img)
		name := fmt.Sprint("qr", i)
		pdf.RegisterImageOptionsReader(name, fpdf.ImageOptions{ImageType: "PNG"}, &pngBuf)
		x, y := t.LabelRect(i)
		pdf.ImageOptions(name, x+lay.QRX, y+lay.QRY, lay.QRSide(), lay.QRSide(), false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
		for _, ln := range lay.Lines {
			pdf.SetFont(monoFont, "", ln.SizePt)
			pdf.Text(x+ln.X, y+ln.Y, ln.Text)
		}
	}
	return pdf.Output(w)
}
