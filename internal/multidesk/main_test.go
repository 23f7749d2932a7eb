package multidesk_test

import (
	"testing"

	"qrdesk/internal/testpg"
)

func TestMain(m *testing.M) { testpg.Main(m) }
