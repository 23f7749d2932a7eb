package cli

import (
	"fmt"
	"strings"
	"time"

	"qrdesk/app"
	"qrdesk/internal/locale"
)

// clockWarning is what 'qrdesk sync' says when this desk's clock is off
// the server's by more than app.ClockTolerance ("" when it is not), in
// Simplified Chinese when the user's locale asks for Chinese: the clerk
// at the desk may run it.
func clockWarning(env *Env, c app.ClockOffset) string {
	if !c.Off() {
		return ""
	}
	if !strings.HasPrefix(userLanguage(env), "zh") {
		return "warning: " + c.Warning()
	}
	way := "慢"
	if c.Ahead() {
		way = "快"
	}
	return fmt.Sprintf("警告：本柜台的时钟比服务器%s %s：请校正时钟", way, chineseDuration(c.Size()))
}

// userLanguage is the language LC_ALL, LC_MESSAGES or LANG names (the
// first one set) as a BCP 47 tag, read through env (tests set it).
func userLanguage(env *Env) string {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := env.Getenv(k); v != "" {
			return locale.Tag(v)
		}
	}
	return locale.Preferred()
}

func chineseDuration(d time.Duration) string {
	n, unit := app.DurationUnit(d)
	return fmt.Sprintf("%d %s", n, map[string]string{"day": "天", "hour": "小时", "minute": "分钟", "second": "秒"}[unit])
}
