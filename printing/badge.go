package printing

import "qrdesk/app"

// BadgeLabels are the labels of operators' sign-in badges: the signed
// badge in the QR, the role and name as the title, so nobody takes one for
// a parcel label.
func BadgeLabels(badges []app.OperatorBadge) []Label {
	labels := make([]Label, len(badges))
	for i, b := range badges {
		role := "OPERATOR 操作员"
		if b.Supervisor {
			role = "SUPERVISOR 主管"
		}
		labels[i] = Label{Raw: b.Badge, Title: role + ": " + b.Name}
	}
	return labels
}
