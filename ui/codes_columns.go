package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// codeColumnShares split the Codes table's width between its columns
// (Code, Status, Batch, Ref, Printed, Used), so every column shows whatever
// the window's width; a cell too narrow for its text ends in "…".
var codeColumnShares = []float32{0.5, 0.1, 0.06, 0.12, 0.08, 0.14}

// rowHeaderWidth is the row number column at the table's left.
const rowHeaderWidth = 56

// fitColumns is a layout for one table that gives its columns their
// shares of the width each time the table is resized.
type fitColumns struct {
	table  *widget.Table
	shares []float32
	widths []float32 // as last set
}

func (f *fitColumns) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	avail := size.Width - rowHeaderWidth - theme.Padding()*float32(len(f.shares)+2)
	f.widths = make([]float32, len(f.shares))
	for col, share := range f.shares {
		f.widths[col] = max(avail*share, 40)
		f.table.SetColumnWidth(col, f.widths[col])
	}
	for _, o := range objects {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (f *fitColumns) MinSize([]fyne.CanvasObject) fyne.Size {
	return fyne.NewSize(rowHeaderWidth+40*float32(len(f.shares)), 120)
}
