package ui

// Player plays the scan sounds; main wires a real one (package ui/beep).
type Player interface {
	Play(accepted bool)
}

type silent struct{}

func (silent) Play(bool) {}
