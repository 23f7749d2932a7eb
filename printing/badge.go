package printing

// BadgeLabel is an operator's sign-in badge: the signed badge in the QR, the
// name (and role) as the title, so nobody takes it for a parcel label.
func BadgeLabel(payload, name string, supervisor bool) Label {
	role := "OPERATOR 操作员"
	if supervisor {
		role = "SUPERVISOR 主管"
	}
	return Label{Raw: payload, Title: role + ": " + name}
}
