package app

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// OrderParcel is what a scan of a label of a pickup order says beside its
// verdict: the order, its customer and which of its parcels the label is
// ("Order 4711 · Müller · parcel 2 of 3"), and the order's other parcels
// not handed over yet. The parcels are the order's labels as issued, in
// serial order; a replacement is its original's parcel.
type OrderParcel struct {
	Number   string `json:"order"`
	Customer string `json:"customer,omitempty"`
	Parcel   int    `json:"parcel"`  // 1 to Parcels
	Parcels  int    `json:"parcels"` // the order's labels as issued
	// Waiting are the order's other parcels (their numbers) not handed
	// over yet, as this desk knows.
	Waiting []int `json:"waiting"`
}

// OrderParcelStore is what naming the parcel needs of the desk's store.
type OrderParcelStore interface {
	// OrderParcel returns the order the label code is a parcel of, or nil
	// when the desk holds no such label or its ref is no order it knows
	// (imported here, or marked so by the server's feed).
	OrderParcel(ctx context.Context, code string) (*OrderParcel, error)
}

// Line is the order's line of the verdict: "Order 4711 · Müller · parcel
// 2 of 3" (without the customer when the order names none).
func (p OrderParcel) Line() string {
	parts := []string{"Order " + p.Number}
	if p.Customer != "" {
		parts = append(parts, p.Customer)
	}
	parts = append(parts, fmt.Sprintf("parcel %d of %d", p.Parcel, p.Parcels))
	return strings.Join(parts, " · ")
}

// WaitingLine says which of the order's other parcels still wait ("1
// parcel of this order still waiting: parcel 3"), or that they are handed
// over; "" for an order of one parcel.
func (p OrderParcel) WaitingLine() string {
	switch {
	case len(p.Waiting) > 0:
		return fmt.Sprintf("%s of this order still waiting: %s %s", Plural(len(p.Waiting), "parcel", "parcels"),
			map[bool]string{true: "parcel", false: "parcels"}[len(p.Waiting) == 1], ParcelList(p.Waiting))
	case p.Parcels > 1:
		return fmt.Sprintf("the order's other %s handed over", Plural(p.Parcels-1, "parcel is", "parcels are"))
	}
	return ""
}

// ParcelList is parcel numbers as "1, 3 and 4".
func ParcelList(n []int) string {
	s := make([]string, len(n))
	for i, x := range n {
		s[i] = strconv.Itoa(x)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// orderParcel is the order of the label code, or nil (no order, or a store
// that keeps none). A failure to read it costs the verdict nothing: the
// verdict stands, without the order's line.
func (s *Service) orderParcel(ctx context.Context, code string) *OrderParcel {
	ops, ok := s.Store.(OrderParcelStore)
	if !ok || code == "" {
		return nil
	}
	p, err := ops.OrderParcel(ctx, code)
	if err != nil {
		s.Log.Warn("cannot read the order of a label", "code", code, "error", err.Error())
		return nil
	}
	return p
}
