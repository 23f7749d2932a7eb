#!/bin/sh
# qrdesk-server prerm: stop the service before its binary goes (on removal;
# an upgrade restarts it in postinst).
set -e
if [ -d /run/systemd/system ] && [ "$1" = remove ]; then
	systemctl disable --now qrdesk-server-backup.timer >/dev/null 2>&1 || true
	systemctl disable --now qrdesk-server.service >/dev/null 2>&1 || true
fi
exit 0
