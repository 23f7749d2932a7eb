package app

import (
	"context"
	"time"
)

// HourCount is how many labels were redeemed in one hour of a day.
type HourCount struct {
	Start    time.Time `json:"start"` // the hour's first second, local time
	Redeemed int       `json:"redeemed"`
}

// RedemptionTimesStore lists when labels were redeemed.
type RedemptionTimesStore interface {
	// RedemptionTimes returns the Unix times of the redemptions in [from, to).
	RedemptionTimes(ctx context.Context, from, to int64) ([]int64, error)
}

// RedeemedByHour counts a local day's redemptions ("" for today) hour by
// hour: 24 hours, 23 or 25 on the days the clocks change.
func (s *Service) RedeemedByHour(ctx context.Context, date string) ([]HourCount, error) {
	day, err := s.parseDay(ctx, date)
	if err != nil {
		return nil, err
	}
	end := day.AddDate(0, 0, 1)
	times, err := s.Store.RedemptionTimes(ctx, day.Unix(), end.Unix())
	if err != nil {
		return nil, err
	}
	var hours []HourCount
	for h := day; h.Before(end); h = h.Add(time.Hour) {
		hours = append(hours, HourCount{Start: h})
	}
	for _, at := range times {
		if i := int((at - day.Unix()) / 3600); i >= 0 && i < len(hours) {
			hours[i].Redeemed++
		}
	}
	return hours, nil
}
