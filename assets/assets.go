// Package assets holds the files compiled into qrdesk: the CJK-capable font,
// the icon and the scan sounds.
package assets

import _ "embed"

// CJKFont is Droid Sans Fallback (TrueType, Apache-2.0): Latin and Chinese.
//
//go:embed fonts/DroidSansFallbackFull.ttf
var CJKFont []byte

// Scan sounds: 16-bit mono PCM WAV at 44.1 kHz.
var (
	//go:embed sounds/accepted.wav
	SoundAccepted []byte
	//go:embed sounds/refused.wav
	SoundRefused []byte
)

// Icon is the window and package icon (512 × 512 PNG).
//
//go:embed icon.png
var Icon []byte
