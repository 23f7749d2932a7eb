package central

// FeedAck is how far a station has read the feed, and when it said so.
type FeedAck struct{ Position, At int64 }
