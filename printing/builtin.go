package printing

// The built-in templates. Sheet geometry is from the manufacturers'
// specifications as gLabels records them (templates/avery-iso-templates.xml
// and avery-us-templates.xml); inches are converted at 25.4 mm.
var builtin = []Template{
	{Name: "L7160", Description: "Avery/Zweckform A4, 21 labels 63.5 × 38.1 mm (3 × 7)",
		PageWidth: 210, PageHeight: 297, LabelWidth: 63.5, LabelHeight: 38.1, Radius: 2.5,
		Columns: 3, Rows: 7, Left: 7.48, Top: 15.49, PitchX: 66.04, PitchY: 38.1},
	{Name: "L7163", Description: "Avery/Zweckform A4, 14 labels 99.1 × 38.1 mm (2 × 7)",
		PageWidth: 210, PageHeight: 297, LabelWidth: 99.1, LabelHeight: 38.1, Radius: 2.5,
		Columns: 2, Rows: 7, Left: 3.35, Top: 15.17, PitchX: 103.01, PitchY: 38.1},
	{Name: "L7651", Description: "Avery/Zweckform A4, 65 labels 38.1 × 21.2 mm (5 × 13)",
		PageWidth: 210, PageHeight: 297, LabelWidth: 38.1, LabelHeight: 21.2, Radius: 1.5,
		Columns: 5, Rows: 13, Left: 4.70, Top: 10.90, PitchX: 40.6, PitchY: 21.2},
	{Name: "5160", Description: "Avery US Letter, 30 labels 2.625 × 1 in (3 × 10)",
		PageWidth: 215.9, PageHeight: 279.4, LabelWidth: 66.675, LabelHeight: 25.4, Radius: 1.5875,
		Columns: 3, Rows: 10, Left: 3.96875, Top: 12.7, PitchX: 70.64375, PitchY: 25.4},
	{Name: "5163", Description: "Avery US Letter, 10 labels 4 × 2 in (2 × 5)",
		PageWidth: 215.9, PageHeight: 279.4, LabelWidth: 101.6, LabelHeight: 50.8, Radius: 3.175,
		Columns: 2, Rows: 5, Left: 4.1275, Top: 12.7, PitchX: 106.3625, PitchY: 50.8},
	{Name: "roll-50x30", Description: "Thermal roll, 50 × 30 mm labels",
		PageWidth: 50, PageHeight: 30, LabelWidth: 50, LabelHeight: 30, Columns: 1, Rows: 1, PitchX: 50, PitchY: 30, Thermal: true},
	{Name: "roll-40x30", Description: "Thermal roll, 40 × 30 mm labels",
		PageWidth: 40, PageHeight: 30, LabelWidth: 40, LabelHeight: 30, Columns: 1, Rows: 1, PitchX: 40, PitchY: 30, Thermal: true},
	{Name: "roll-60x40", Description: "Thermal roll, 60 × 40 mm labels",
		PageWidth: 60, PageHeight: 40, LabelWidth: 60, LabelHeight: 40, Columns: 1, Rows: 1, PitchX: 60, PitchY: 40, Thermal: true},
}
