package app

import "testing"

// TestLooksLikeBadge: a badge, and one misread by a letter of its marker
// (changed, left out, added), look like a badge; labels, with at most six
// letters before their digits, never do.
func TestLooksLikeBadge(t *testing.T) {
	badge := "QRDESK-BADGE-D-000001-0001-AM4F3LHDKY2VMQZB4"
	for _, tc := range []struct {
		raw  string
		want bool
	}{
		{badge, true},
		{"qrdesk-badge-d-000001-0001-am4f3lhdky2vmqzb4", true},
		{"QRDESK-BADGF-D-000001-0001-AM4F3LHDKY2VMQZB4", true},
		{"QRDESK-BADE-D-000001-0001-AM4F3LHDKY2VMQZB4", true},
		{"QRDESK-BAADGE-D-000001-0001-AM4F3LHDKY2VMQZB4", true},
		{"XQRDESK-BADGE-D-000001-0001-AM4F3LHDKY2VMQZB4", true},
		{"ORDESK-BADGE-D-000001", true},
		{"261129-A0001-5MAUQ6CGHLYB-AZS2CPAU7", false},
		{"WHSTOR-261129-A0001-5MAUQ6CGHLYB-AZS2CPAU7", false},
		{"QRDESK", false},
		{"hello", false},
		{"", false},
	} {
		if got := LooksLikeBadge(tc.raw); got != tc.want {
			t.Errorf("LooksLikeBadge(%q) = %v, want %v", tc.raw, got, tc.want)
		}
	}
}
