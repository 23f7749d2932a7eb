#!/bin/sh
# qrdesk-server postrm. The database in /var/lib/qrdesk-server (really
# /var/lib/private/qrdesk-server, DynamicUser) is kept even on purge: it is
# the record of every redemption. Delete it by hand if you mean to.
set -e
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
fi
exit 0
