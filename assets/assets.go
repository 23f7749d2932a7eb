// Package assets holds the files compiled into qrdesk: the fonts labels and
// reports are printed in, the icon and the scan sounds.
package assets

import _ "embed"

// TextFont is Noto Sans Regular (TrueType, SIL OFL 1.1): Latin with its
// accents (ß, ő, ł, ç…), Greek, Cyrillic and Vietnamese. Printed text takes
// each character from the first of TextFont and CJKFont that holds it
// (printing/fonts.go).
//
//go:embed fonts/NotoSans-Regular.ttf
var TextFont []byte

// CJKFont is Droid Sans Fallback (TrueType, Apache-2.0): Latin and Chinese.
//
//go:embed fonts/DroidSansFallbackFull.ttf
var CJKFont []byte

// CJKBold is Noto Sans CJK SC Bold (OpenType CFF, SIL OFL 1.1) cut down
// to ASCII and the characters of the window's Chinese texts
// (scripts/cjk-bold-subset.sh): the Scan screen's verdict titles in bold.
// Droid Sans Fallback has no bold face.
//
//go:embed fonts/NotoSansCJKsc-Bold-subset.otf
var CJKBold []byte

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
