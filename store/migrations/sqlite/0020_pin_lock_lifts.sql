-- qrdesk: older releases may open a database with this migration
-- A supervisor lifts a name's PIN lockout at the desk (audit action
-- 'pin_unlock'), and a new PIN ends it too ('pin_change'): the wrong PINs
-- that count are those after the latest of these and of the name's last
-- sign-in by PIN. Both actions are rare, so the index is small.
CREATE INDEX audit_pin_reset ON audit (action, id) WHERE action IN ('pin_unlock', 'pin_change');
