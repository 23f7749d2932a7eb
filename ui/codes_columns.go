package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// codeColumns' minimum widths (Code, Status, Batch, Ref, Printed, Used),
// and the shares of the width left over: every column shows whatever the
// window's width, a cell too narrow for its text ends in "…".
var (
	codeColumnMins   = []float32{200, 80, 50, 60, 64, 80}
	codeColumnShares = []float32{0.7, 0, 0, 0.15, 0, 0.15}
)

// rowHeaderWidth is the row number column at the table's left.
const rowHeaderWidth = 56

// fitColumns is a layout for one table that gives its columns their
// shares of the width each time the table is resized.
type fitColumns struct {
	table  *widget.Table
	mins   []float32
	shares []float32
	widths []float32 // as last set
}

func (f *fitColumns) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	spare := size.Width - rowHeaderWidth - theme.Padding()*float32(len(f.shares)+2)
	for _, m := range f.mins {
		spare -= m
	}
	spare = max(spare, 0)
	f.widths = make([]float32, len(f.shares))
	for col, share := range f.shares {
		f.widths[col] = f.mins[col] + spare*share
		f.table.SetColumnWidth(col, f.widths[col])
	}
	for _, o := range objects {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (f *fitColumns) MinSize([]fyne.CanvasObject) fyne.Size {
	w := float32(rowHeaderWidth)
	for _, m := range f.mins {
		w += m
	}
	return fyne.NewSize(w, 120)
}
