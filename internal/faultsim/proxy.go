package faultsim

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// ModeKind is what a desk's proxy does to each request.
type ModeKind int

const (
	Pass        ModeKind = iota // forward, answer
	Delay                       // forward, answer after Mode.Delay (the server has committed)
	DropRequest                 // cut the connection: the request never reaches the server
	DropAnswer                  // forward (the server commits), cut the connection before the answer
	Duplicate                   // forward twice at once, answer the first
	Refuse                      // network down: every connection is reset
)

// Mode is a proxy's behaviour; Delay is used by the Delay kind.
type Mode struct {
	Kind  ModeKind
	Delay time.Duration
}

func (m Mode) String() string {
	switch m.Kind {
	case Pass:
		return "pass"
	case Delay:
		return fmt.Sprintf("delay %v", m.Delay)
	case DropRequest:
		return "drop requests"
	case DropAnswer:
		return "drop answers"
	case Duplicate:
		return "duplicate requests"
	case Refuse:
		return "refuse connections"
	}
	return fmt.Sprintf("mode %d", int(m.Kind))
}

// proxyStats counts what a proxy did, so a run can show its faults happened.
type proxyStats struct {
	Forwarded, Delayed, DroppedRequests, DroppedAnswers, Duplicated, Refused, ServerDown atomic.Int64
}

// proxy is an HTTP-aware loopback proxy between one desk and the server. It
// reads each request whole, then applies the mode current at that moment;
// every request goes to the server on a connection of its own, to whatever
// address target returns (the server moves when it restarts).
type proxy struct {
	ln       net.Listener
	target   func() string
	mode     atomic.Pointer[Mode]
	inflight atomic.Int64 // requests at the server now
	stats    proxyStats
	upstream *http.Client

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed chan struct{}
	wg     sync.WaitGroup
}

func newProxy(target func() string) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &proxy{
		ln: ln, target: target, conns: map[net.Conn]struct{}{}, closed: make(chan struct{}),
		upstream: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}},
	}
	p.mode.Store(&Mode{Kind: Pass})
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// URL is what the desk's client talks to.
func (p *proxy) URL() string { return "http://" + p.ln.Addr().String() }

func (p *proxy) setMode(m Mode) { p.mode.Store(&m) }

func (p *proxy) currentMode() Mode { return *p.mode.Load() }

// close stops the proxy and cuts every connection.
func (p *proxy) close() {
	p.mu.Lock()
	select {
	case <-p.closed:
		p.mu.Unlock()
		return
	default:
	}
	close(p.closed)
	p.ln.Close()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// settle waits until no request the proxy forwarded is still at the server
// (a late answer's request may still be committing when its desk moved on).
func (p *proxy) settle(limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for p.inflight.Load() > 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

func (p *proxy) accept() {
	defer p.wg.Done()
	for {
		conn, err := p.ln.Accept()
		if err != nil {
			return
		}
		if p.currentMode().Kind == Refuse {
			p.stats.Refused.Add(1)
			reset(conn)
			continue
		}
		p.mu.Lock()
		select {
		case <-p.closed:
			p.mu.Unlock()
			conn.Close()
			return
		default:
		}
		p.conns[conn] = struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		go p.serve(conn)
	}
}

// reset closes a connection with a TCP reset, as a dead network or host does.
func reset(conn net.Conn) {
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

func (p *proxy) serve(conn net.Conn) {
	defer p.wg.Done()
	defer func() {
		p.mu.Lock()
		delete(p.conns, conn)
		p.mu.Unlock()
		conn.Close()
	}()
	br := bufio.NewReader(conn)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return
		}
		m := p.currentMode()
		switch m.Kind {
		case Refuse:
			p.stats.Refused.Add(1)
			reset(conn)
			return
		case DropRequest:
			p.stats.DroppedRequests.Add(1)
			reset(conn)
			return
		case Duplicate:
			p.stats.Duplicated.Add(1)
			p.inflight.Add(1)
			go func() {
				defer p.inflight.Add(-1)
				p.forward(req, body)
			}()
		}
		resp, err := p.forward(req, body)
		if err != nil {
			p.stats.ServerDown.Add(1)
			reset(conn)
			return
		}
		switch m.Kind {
		case DropAnswer:
			p.stats.DroppedAnswers.Add(1)
			reset(conn)
			return
		case Delay:
			p.stats.Delayed.Add(1)
			select {
			case <-time.After(m.Delay):
			case <-p.closed:
				return
			}
		}
		if err := resp.Write(conn); err != nil {
			return
		}
	}
}

// forward sends one request to the server and reads the whole answer.
func (p *proxy) forward(req *http.Request, body []byte) (*http.Response, error) {
	p.inflight.Add(1)
	defer p.inflight.Add(-1)
	addr := p.target()
	if addr == "" {
		return nil, fmt.Errorf("server down")
	}
	out, err := http.NewRequest(req.Method, "http://"+addr+req.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	out.Header = req.Header.Clone()
	resp, err := p.upstream.Do(out)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	p.stats.Forwarded.Add(1)
	resp.Header.Del("Connection") // the desk keeps its connection; only the upstream one is per request
	return &http.Response{
		StatusCode: resp.StatusCode, ProtoMajor: 1, ProtoMinor: 1, Header: resp.Header,
		ContentLength: int64(len(data)), Body: io.NopCloser(bytes.NewReader(data)),
	}, nil
}
