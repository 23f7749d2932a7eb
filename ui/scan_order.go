package ui

import (
	"strconv"
	"strings"

	"qrdesk/app"
)

// orderLine is the order's line of a verdict on one of its labels, in the
// clerk's language: "Order 4711 · Müller · parcel 2 of 3".
func orderLine(p *app.OrderParcel) string {
	data := map[string]any{"Order": p.Number, "Customer": p.Customer, "Parcel": p.Parcel, "Parcels": p.Parcels}
	if p.Customer == "" {
		return T("Order {{.Order}} · parcel {{.Parcel}} of {{.Parcels}}", data)
	}
	return T("Order {{.Order}} · {{.Customer}} · parcel {{.Parcel}} of {{.Parcels}}", data)
}

// orderWaiting says which of the order's other parcels still wait, or
// that they are handed over; "" for an order of one parcel.
func orderWaiting(p *app.OrderParcel) string {
	list := make([]string, len(p.Waiting))
	for i, n := range p.Waiting {
		list[i] = strconv.Itoa(n)
	}
	data := map[string]any{"Count": len(p.Waiting), "List": strings.Join(list, T(", ")), "Others": p.Parcels - 1}
	switch {
	case len(p.Waiting) == 1:
		return T("1 parcel of this order still waiting: parcel {{.List}}", data)
	case len(p.Waiting) > 1:
		return T("{{.Count}} parcels of this order still waiting: parcels {{.List}}", data)
	case p.Parcels == 2:
		return T("The order's other parcel is handed over", data)
	case p.Parcels > 2:
		return T("The order's other {{.Others}} parcels are handed over", data)
	}
	return ""
}

// showOrder names, under a verdict on a label of an order, the order,
// the parcel and the parcels still waiting.
func (s *scanScreen) showOrder(v app.Verdict) {
	if v.Order == nil {
		return
	}
	if v.Outcome == app.OutcomeRedeemed && v.Site == "" {
		s.detail.Text = orderLine(v.Order)
		s.detail.Refresh()
		s.note.SetText(orderWaiting(v.Order))
		s.result.Refresh()
		return
	}
	if s.note.Text == "" {
		s.note.SetText(orderLine(v.Order))
	}
}
