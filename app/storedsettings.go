package app

import (
	"fmt"
	"sort"
)

// SettingsFromStored rebuilds the settings a desk has stored, as
// SettingsFromValues does, except that a value this release refuses does
// not stop the desk. An older release checked less (the first one took a
// default operator with an invisible direction mark or a tab, checking its
// length only); refusing such a value would refuse every command,
// 'qrdesk settings' too, which is how it is fixed. The value is cleaned
// (invisible format characters dropped, control characters made spaces,
// spaces trimmed) and used if that is allowed, or the setting's default is
// used; either way Repaired says so until the setting is saved again.
func SettingsFromStored(values map[string]string) Settings {
	s := DefaultSettings()
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		err := s.Set(k, values[k])
		if err == nil {
			continue
		}
		used := "its default"
		if cleaned := cleanStoredText(values[k]); cleaned != values[k] && s.Set(k, cleaned) == nil {
			used = fmt.Sprintf("%q", cleaned)
		}
		s.Repaired = append(s.Repaired, fmt.Sprintf("the stored setting %s %q is not allowed (%v): %s is used until it is set again with 'qrdesk settings'", k, values[k], err, used))
	}
	return s
}
