#!/bin/sh
# qrdesk-server postinst: enable and (re)start the service where systemd runs.
# The database is created by the server itself on first start, in its
# StateDirectory (/var/lib/qrdesk-server); nothing to set up here.
set -e
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload
	systemctl enable qrdesk-server.service >/dev/null 2>&1 || true
	systemctl enable --now qrdesk-server-backup.timer >/dev/null 2>&1 || true
	systemctl restart qrdesk-server.service || echo "qrdesk-server: the service did not start; see: journalctl -u qrdesk-server" >&2
fi
exit 0
