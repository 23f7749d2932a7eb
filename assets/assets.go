// Package assets holds the files compiled into qrdesk: the CJK-capable font,
// the icon and the scan sounds.
package assets

import _ "embed"

// CJKFont is Droid Sans Fallback (TrueType, Apache-2.0): Latin and Chinese.
//
//go:embed fonts/DroidSansFallbackFull.ttf
var CJKFont []byte
