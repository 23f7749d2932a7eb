package serverdb

// StationsChanged counts the changes this process made to stations and
// sites (revoked, renewed, moved to another site, a letter bound, a site
// renamed). The server keeps a desk's token lookup for its feed reads only
// while this is unchanged, so a revocation on the dashboard refuses the
// desk's next feed read at once.
func (c *DB) StationsChanged() int64 { return c.stationsGen.Load() }

func (c *DB) stationsChanged() { c.stationsGen.Add(1) }
