// Package beep plays the scan sounds through oto (ALSA on Linux, WASAPI on
// Windows, Core Audio on macOS). A station without a sound device stays
// silent: the failure is logged once and scanning carries on.
package beep

import (
	"bytes"
	"log/slog"
	"sync"

	"github.com/ebitengine/oto/v3"

	"qrdesk/assets"
)

const wavHeader = 44 // the assets are plain 44-byte-header PCM WAVs

// Player plays the accepted and refused sounds.
type Player struct {
	once sync.Once
	ctx  *oto.Context
	log  *slog.Logger
}

// New returns a player that logs to log when there is no sound device.
func New(log *slog.Logger) *Player {
	return &Player{log: log}
}

func (p *Player) open() {
	ctx, ready, err := oto.NewContext(&oto.NewContextOptions{SampleRate: 44100, ChannelCount: 1, Format: oto.FormatSignedInt16LE})
	if err != nil {
		p.log.Warn("no sound device: scan sounds are off", "error", err.Error())
		return
	}
	<-ready
	p.ctx = ctx
}

// Play plays the sound for an accepted or refused scan without waiting.
func (p *Player) Play(accepted bool) {
	p.once.Do(p.open)
	if p.ctx == nil {
		return
	}
	wav := assets.SoundRefused
	if accepted {
		wav = assets.SoundAccepted
	}
	p.ctx.NewPlayer(bytes.NewReader(wav[wavHeader:])).Play()
}
