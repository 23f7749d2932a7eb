package printing

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Printing on Windows goes through the Windows spooler to any installed
// printer, chosen by its Windows name:
//
//   - label sheets and rolls are drawn with GDI on the printer's device
//     context: every run of dark QR modules a filled rectangle (vector, at
//     the printer's resolution), the text with TextOutW, each label where
//     the template puts it, measured from the paper's corner (the printable
//     area's offset taken off);
//   - ZPL goes to the printer RAW (a USB thermal printer's Windows queue),
//     as "lp -o raw" does on Linux;
//   - other PDF pages (calibration, scanner test, badges) are refused with
//     the way round: save the file and print it at 100 %.
//
// A label sheet's job asks the printer for the template's paper (A4,
// Letter, or the roll's size) and is refused before it starts when the
// paper the printer took cannot hold the labels (paper.go).

var (
	winspool = windows.NewLazySystemDLL("winspool.drv")
	gdi32    = windows.NewLazySystemDLL("gdi32.dll")

	procEnumPrintersW    = winspool.NewProc("EnumPrintersW")
	procOpenPrinterW     = winspool.NewProc("OpenPrinterW")
	procClosePrinter     = winspool.NewProc("ClosePrinter")
	procStartDocPrinterW = winspool.NewProc("StartDocPrinterW")
	procEndDocPrinter    = winspool.NewProc("EndDocPrinter")
	procStartPagePrinter = winspool.NewProc("StartPagePrinter")
	procEndPagePrinter   = winspool.NewProc("EndPagePrinter")
	procWritePrinter     = winspool.NewProc("WritePrinter")
	procDocumentPropsW   = winspool.NewProc("DocumentPropertiesW")

	procCreateDCW             = gdi32.NewProc("CreateDCW")
	procDeleteDC              = gdi32.NewProc("DeleteDC")
	procStartDocW             = gdi32.NewProc("StartDocW")
	procEndDoc                = gdi32.NewProc("EndDoc")
	procAbortDoc              = gdi32.NewProc("AbortDoc")
	procStartPage             = gdi32.NewProc("StartPage")
	procEndPage               = gdi32.NewProc("EndPage")
	procGetDeviceCaps         = gdi32.NewProc("GetDeviceCaps")
	procPatBlt                = gdi32.NewProc("PatBlt")
	procCreateFontW           = gdi32.NewProc("CreateFontW")
	procSelectObject          = gdi32.NewProc("SelectObject")
	procDeleteObject          = gdi32.NewProc("DeleteObject")
	procSetBkMode             = gdi32.NewProc("SetBkMode")
	procSetTextAlign          = gdi32.NewProc("SetTextAlign")
	procTextOutW              = gdi32.NewProc("TextOutW")
	procGetTextExtentPoint32W = gdi32.NewProc("GetTextExtentPoint32W")
)

const (
	printerEnumLocal       = 0x2
	printerEnumConnections = 0x4

	logPixelsX      = 88
	logPixelsY      = 90
	physicalWidth   = 110
	physicalHeight  = 111
	physicalOffsetX = 112
	physicalOffsetY = 113

	// DocumentPropertiesW's modes and DEVMODEW's fields.
	dmOutBuffer      = 2
	dmInBuffer       = 8
	dmFOrientation   = 0x1
	dmFPaperSize     = 0x2
	dmFPaperLength   = 0x4
	dmFPaperWidth    = 0x8
	dmOrientPortrait = 1
	// Byte offsets in DEVMODEW (after dmDeviceName's 32 UTF-16 units).
	dmFieldsAt      = 72
	dmOrientationAt = 76
	dmPaperSizeAt   = 78
	dmPaperLengthAt = 80
	dmPaperWidthAt  = 82

	blackness   = 0x00000042 // PatBlt: fill with black
	transparent = 1          // SetBkMode
	taBaseline  = 24         // SetTextAlign: y is the baseline
	fwNormal    = 400
	charsetAny  = 1 // DEFAULT_CHARSET
)

// printerInfo4 is PRINTER_INFO_4W.
type printerInfo4 struct {
	name       *uint16
	server     *uint16
	attributes uint32
}

// docInfo1 is DOC_INFO_1W (the spooler's RAW jobs).
type docInfo1 struct {
	docName, outputFile, datatype *uint16
}

// docInfo is DOCINFOW (GDI jobs).
type docInfo struct {
	size                      int32
	docName, output, datatype *uint16
	flags                     uint32
}

// systemPrinters lists the installed Windows printers, local and
// connected (network), by the names Settings and --printer take.
func systemPrinters() ([]string, error) {
	flags := uintptr(printerEnumLocal | printerEnumConnections)
	var needed, count uint32
	procEnumPrintersW.Call(flags, 0, 4, 0, 0, uintptr(unsafe.Pointer(&needed)), uintptr(unsafe.Pointer(&count)))
	if needed == 0 {
		return nil, nil
	}
	buf := make([]byte, needed)
	r, _, err := procEnumPrintersW.Call(flags, 0, 4, uintptr(unsafe.Pointer(&buf[0])), uintptr(needed),
		uintptr(unsafe.Pointer(&needed)), uintptr(unsafe.Pointer(&count)))
	if r == 0 {
		return nil, fmt.Errorf("cannot list the Windows printers: %w", err)
	}
	infos := unsafe.Slice((*printerInfo4)(unsafe.Pointer(&buf[0])), count)
	names := make([]string, 0, count)
	for _, in := range infos {
		names = append(names, windows.UTF16PtrToString(in.name))
	}
	return names, nil
}

// sendToPrinter prints on the Windows printer named printer: ZPL RAW,
// label sheets drawn with GDI. It returns "<printer>-<spooler job id>".
func sendToPrinter(printer, title string, data []byte, raw bool, s *sheet) (queueJob, warning string, err error) {
	switch {
	case raw:
		queueJob, err = sendRaw(printer, title, data)
		return queueJob, "", err
	case s != nil:
		return drawSheets(printer, title, s.labels, s.options)
	}
	return "", "", errors.New("this page cannot go to a Windows printer directly: save it with -o (Save PDF) and print the file at 100 % scale")
}

// devModeFor is the printer's own settings (DEVMODEW, with its driver's
// private part) with the paper set to want, as the driver merged it; nil
// when the driver does not say (the printer's defaults are used then, and
// checkPaper judges them).
func devModeFor(printer string, want paperRequest) []byte {
	var h windows.Handle
	if r, _, _ := procOpenPrinterW.Call(uintptr(unsafe.Pointer(utf16(printer))), uintptr(unsafe.Pointer(&h)), 0); r == 0 {
		return nil
	}
	defer procClosePrinter.Call(uintptr(h))
	name := uintptr(unsafe.Pointer(utf16(printer)))
	size, _, _ := procDocumentPropsW.Call(0, uintptr(h), name, 0, 0, 0)
	if int32(size) < dmPaperWidthAt+2 {
		return nil
	}
	dm := make([]byte, size)
	if r, _, _ := procDocumentPropsW.Call(0, uintptr(h), name, uintptr(unsafe.Pointer(&dm[0])), 0, dmOutBuffer); int32(r) < 0 {
		return nil
	}
	put16 := func(at int, v int16) { *(*int16)(unsafe.Pointer(&dm[at])) = v }
	fields := (*uint32)(unsafe.Pointer(&dm[dmFieldsAt]))
	*fields |= dmFOrientation | dmFPaperSize
	put16(dmOrientationAt, dmOrientPortrait)
	put16(dmPaperSizeAt, want.Size)
	if want.Size == paperCustom {
		*fields |= dmFPaperLength | dmFPaperWidth
		put16(dmPaperLengthAt, want.Length)
		put16(dmPaperWidthAt, want.Width)
	}
	merged := make([]byte, size)
	if r, _, _ := procDocumentPropsW.Call(0, uintptr(h), name, uintptr(unsafe.Pointer(&merged[0])),
		uintptr(unsafe.Pointer(&dm[0])), dmInBuffer|dmOutBuffer); int32(r) < 0 {
		return nil
	}
	return merged
}

func utf16(s string) *uint16 {
	p, err := windows.UTF16PtrFromString(s)
	if err != nil { // a NUL in s: never in printer names or titles
		p, _ = windows.UTF16PtrFromString("qrdesk")
	}
	return p
}

// sendRaw spools data to printer untouched (datatype RAW).
func sendRaw(printer, title string, data []byte) (string, error) {
	var h windows.Handle
	if r, _, err := procOpenPrinterW.Call(uintptr(unsafe.Pointer(utf16(printer))), uintptr(unsafe.Pointer(&h)), 0); r == 0 {
		return "", fmt.Errorf("there is no Windows printer %q ('qrdesk printers' lists them): %w", printer, err)
	}
	defer procClosePrinter.Call(uintptr(h))
	di := docInfo1{docName: utf16(title), datatype: utf16("RAW")}
	job, _, err := procStartDocPrinterW.Call(uintptr(h), 1, uintptr(unsafe.Pointer(&di)))
	if job == 0 {
		return "", fmt.Errorf("printer %s refused the job: %w", printer, err)
	}
	procStartPagePrinter.Call(uintptr(h))
	var written uint32
	if len(data) > 0 {
		r, _, err := procWritePrinter.Call(uintptr(h), uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)), uintptr(unsafe.Pointer(&written)))
		if r == 0 || int(written) != len(data) {
			procEndDocPrinter.Call(uintptr(h))
			return "", fmt.Errorf("printer %s stopped accepting the job after %d of %d bytes: %w", printer, written, len(data), err)
		}
	}
	procEndPagePrinter.Call(uintptr(h))
	if r, _, err := procEndDocPrinter.Call(uintptr(h)); r == 0 {
		return "", fmt.Errorf("printer %s did not finish the job: %w", printer, err)
	}
	return printer + "-" + strconv.Itoa(int(job)), nil
}

// gdiPage maps millimetres on the paper to the printer's device units.
type gdiPage struct {
	dc         uintptr
	dpiX, dpiY float64
	offX, offY float64 // the printable area's corner, device units from the paper's
}

func (g gdiPage) x(mm float64) int32 { return int32(math.Round(mm*g.dpiX/25.4 - g.offX)) }
func (g gdiPage) y(mm float64) int32 { return int32(math.Round(mm*g.dpiY/25.4 - g.offY)) }

// rect fills the rectangle (x, y, w, h in mm) black. Both edges are
// rounded, so neighbouring runs of modules meet without gaps.
func (g gdiPage) rect(x, y, w, h float64) {
	x0, y0, x1, y1 := g.x(x), g.y(y), g.x(x+w), g.y(y+h)
	procPatBlt.Call(g.dc, uintptr(x0), uintptr(y0), uintptr(x1-x0), uintptr(y1-y0), blackness)
}

// text writes s with its baseline's left end at (x, y) mm in face at
// sizePt and returns its width in mm.
func (g gdiPage) text(x, y float64, s, face string, sizePt float64, mono bool) float64 {
	pitch := uintptr(0)
	if mono {
		pitch = 1 | 0x30 // FIXED_PITCH | FF_MODERN
	}
	height := -int32(math.Round(sizePt * g.dpiY / 72))
	font, _, _ := procCreateFontW.Call(uintptr(height), 0, 0, 0, fwNormal, 0, 0, 0, charsetAny, 0, 0, 0, pitch,
		uintptr(unsafe.Pointer(utf16(face))))
	if font == 0 {
		return 0
	}
	old, _, _ := procSelectObject.Call(g.dc, font)
	defer func() {
		procSelectObject.Call(g.dc, old)
		procDeleteObject.Call(font)
	}()
	u := windows.StringToUTF16(s)
	u = u[:len(u)-1]
	if len(u) == 0 {
		return 0
	}
	procTextOutW.Call(g.dc, uintptr(g.x(x)), uintptr(g.y(y)), uintptr(unsafe.Pointer(&u[0])), uintptr(len(u)))
	var size struct{ cx, cy int32 }
	procGetTextExtentPoint32W.Call(g.dc, uintptr(unsafe.Pointer(&u[0])), uintptr(len(u)), uintptr(unsafe.Pointer(&size)))
	return float64(size.cx) * 25.4 / g.dpiX
}

// drawSheets prints labels on printer as the PDF would show them.
func drawSheets(printer, title string, labels []Label, o Options) (queueJob, warning string, err error) {
	if err := o.validate(len(labels)); err != nil {
		return "", "", err
	}
	layouts, err := layoutAll(labels, o)
	if err != nil {
		return "", "", err
	}
	var devMode uintptr
	if dm := devModeFor(printer, paperFor(o.Template)); dm != nil {
		devMode = uintptr(unsafe.Pointer(&dm[0]))
		defer runtime.KeepAlive(dm)
	}
	dc, _, cerr := procCreateDCW.Call(uintptr(unsafe.Pointer(utf16("WINSPOOL"))), uintptr(unsafe.Pointer(utf16(printer))), 0, devMode)
	if dc == 0 {
		return "", "", fmt.Errorf("there is no Windows printer %q ('qrdesk printers' lists them): %w", printer, cerr)
	}
	defer procDeleteDC.Call(dc)
	caps := func(i uintptr) float64 { r, _, _ := procGetDeviceCaps.Call(dc, i); return float64(int32(r)) }
	g := gdiPage{dc: dc, dpiX: caps(logPixelsX), dpiY: caps(logPixelsY), offX: caps(physicalOffsetX), offY: caps(physicalOffsetY)}
	if g.dpiX <= 0 || g.dpiY <= 0 {
		return "", "", fmt.Errorf("printer %s did not say its resolution", printer)
	}
	if w, h := caps(physicalWidth), caps(physicalHeight); w > 0 && h > 0 {
		if warning, err = checkPaper(printer, o, w*25.4/g.dpiX, h*25.4/g.dpiY); err != nil {
			return "", "", err
		}
	}
	di := docInfo{docName: utf16(title)}
	di.size = int32(unsafe.Sizeof(di))
	job, _, serr := procStartDocW.Call(dc, uintptr(unsafe.Pointer(&di)))
	if int32(job) <= 0 {
		return "", "", fmt.Errorf("printer %s refused the job: %w", printer, serr)
	}
	pageOpen := false
	fail := func(what string, err error) (string, string, error) {
		procAbortDoc.Call(dc)
		return "", "", fmt.Errorf("printer %s: %s: %w", printer, what, err)
	}
	procSetBkMode.Call(dc, transparent)
	t := o.Template
	for i, l := range layouts {
		pos := o.Start + i
		if i == 0 || pos%t.PerPage() == 0 {
			if pageOpen {
				if r, _, err := procEndPage.Call(dc); int32(r) <= 0 {
					return fail("the page was not taken", err)
				}
			}
			if r, _, err := procStartPage.Call(dc); int32(r) <= 0 {
				return fail("no new page", err)
			}
			procSetBkMode.Call(dc, transparent) // StartPage resets the DC on some drivers
			procSetTextAlign.Call(dc, taBaseline)
			pageOpen = true
		}
		x, y := t.LabelRect(pos)
		x, y = x+o.OffsetX, y+o.OffsetY
		m := l.ModuleMM
		qx, qy := x+l.QRX+quietZone*m, y+l.QRY+quietZone*m
		darkRects(l.Matrix, func(row, col, w, h int) {
			g.rect(qx+float64(col)*m, qy+float64(row)*m, float64(w)*m, float64(h)*m)
		})
		for _, ln := range l.Lines {
			if ln.Mono {
				g.text(x+ln.X, y+ln.Y, ln.Text, "Courier New", ln.SizePt, true)
				continue
			}
			// Windows' own faces stand in for the chain's (fonts.go):
			// Arial for Noto Sans (Latin, Greek, Cyrillic, Vietnamese),
			// Microsoft YaHei for Droid Sans Fallback (CJK).
			tx := x + ln.X
			for _, run := range fontRuns(ln.Text) {
				face := "Arial"
				if fontChain()[run.font].family == titleFont {
					face = "Microsoft YaHei"
				}
				tx += g.text(tx, y+ln.Y, run.text, face, ln.SizePt, false)
			}
		}
	}
	if r, _, err := procEndPage.Call(dc); int32(r) <= 0 {
		return fail("the last page was not taken", err)
	}
	if r, _, err := procEndDoc.Call(dc); int32(r) <= 0 {
		return "", "", fmt.Errorf("printer %s did not finish the job: %w", printer, err)
	}
	return printer + "-" + strconv.Itoa(int(int32(job))), warning, nil
}
