package webfetch

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// SSRFPolicy decides which addresses the Fetcher may connect to. The zero value is the
// default: public internet addresses only, any port.
//
// Order of decisions for one address: an address in Deny is refused; an address in Allow is
// admitted; IPv4-mapped, IPv4-compatible and NAT64 IPv6 addresses are judged by their
// embedded IPv4 address; cloud metadata services (169.254.169.254, 169.254.170.2,
// 100.100.100.200, fd00:ec2::/32) are refused whatever AllowPrivate says; loopback is
// admitted only with AllowLoopback; RFC 1918, CGNAT (100.64.0.0/10) and unique-local IPv6
// (fc00::/7) only with AllowPrivate; every other
// special-purpose range (link-local, metadata, multicast, documentation, reserved, and IPv6
// outside 2000::/3) needs an explicit Allow prefix. Ports, when non-empty, lists the only
// ports that may be dialled.
type SSRFPolicy struct {
	AllowLoopback bool
	AllowPrivate  bool
	Allow         []netip.Prefix
	Deny          []netip.Prefix
	Ports         []uint16
}

type namedPrefix struct {
	p    netip.Prefix
	name string
}

func np(s, name string) namedPrefix { return namedPrefix{netip.MustParsePrefix(s), name} }

var (
	loopbackRanges = []namedPrefix{np("127.0.0.0/8", "loopback"), np("::1/128", "loopback")}
	privateRanges  = []namedPrefix{
		np("10.0.0.0/8", "private network"),
		np("172.16.0.0/12", "private network"),
		np("192.168.0.0/16", "private network"),
		np("100.64.0.0/10", "carrier-grade NAT"),
		np("fc00::/7", "unique local address"),
	}
	specialRanges = []namedPrefix{
		np("0.0.0.0/8", "this network"),
		np("169.254.0.0/16", "link-local"),
		np("192.0.0.0/24", "IETF protocol assignments"),
		np("192.0.2.0/24", "documentation"),
		np("192.31.196.0/24", "AS112"),
		np("192.52.193.0/24", "AMT"),
		np("192.88.99.0/24", "6to4 relay anycast"),
		np("192.175.48.0/24", "AS112"),
		np("198.18.0.0/15", "benchmarking"),
		np("198.51.100.0/24", "documentation"),
		np("203.0.113.0/24", "documentation"),
		np("224.0.0.0/4", "multicast"),
		np("255.255.255.255/32", "broadcast"),
		np("240.0.0.0/4", "reserved"),
		np("::/128", "unspecified"),
		np("fe80::/10", "link-local"),
		np("ff00::/8", "multicast"),
		np("2001::/23", "IETF protocol assignments"),
		np("2001:db8::/32", "documentation"),
		np("2002::/16", "6to4"),
		np("2620:4f:8000::/48", "AS112"),
		np("3fff::/20", "documentation"),
	}
	// metadataRanges are cloud instance-metadata services. Some sit inside ranges that
	// AllowPrivate admits (AWS's IPv6 service range is unique-local, Alibaba's address is
	// carrier-grade NAT), so they are refused before loopback and private ranges are
	// considered; only an explicit Allow prefix admits them.
	metadataRanges = []namedPrefix{
		np("169.254.169.254/32", "cloud metadata"),
		np("169.254.170.2/32", "cloud metadata"), // container task metadata
		np("100.100.100.200/32", "cloud metadata"),
		np("fd00:ec2::/32", "cloud metadata"), // AWS: metadata ::254, DNS ::253, time ::123
	}
	globalUnicast = netip.MustParsePrefix("2000::/3")
	nat64         = []netip.Prefix{netip.MustParsePrefix("64:ff9b::/96"), netip.MustParsePrefix("64:ff9b:1::/48")}
	v4compat      = netip.MustParsePrefix("::/96")
)

// denyReason returns the name of the range that refuses addr under p, or "" when addr may be
// dialled. It is a pure function of its arguments.
func (p *SSRFPolicy) denyReason(addr netip.Addr) string {
	addr = addr.WithZone("")
	for _, d := range p.Deny {
		if d.Contains(addr) {
			return "denied by policy"
		}
	}
	for _, a := range p.Allow {
		if a.Contains(addr) {
			return ""
		}
	}
	if addr.Is6() {
		switch {
		case addr.Is4In6():
			return p.denyReason(addr.Unmap())
		case nat64[0].Contains(addr):
			b := addr.As16()
			return p.denyReason(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		case nat64[1].Contains(addr):
			// The local-use prefix may be used with a /48, /56, /64 or /96 translator
			// prefix (RFC 6052, section 2.2), so the IPv4 address may sit at any of those
			// positions: every candidate must be admitted.
			b := addr.As16()
			for _, v4 := range [][4]byte{
				{b[6], b[7], b[9], b[10]},
				{b[7], b[9], b[10], b[11]},
				{b[9], b[10], b[11], b[12]},
				{b[12], b[13], b[14], b[15]},
			} {
				if reason := p.denyReason(netip.AddrFrom4(v4)); reason != "" {
					return reason
				}
			}
			return ""
		case v4compat.Contains(addr) && addr != netip.IPv6Loopback() && addr != netip.IPv6Unspecified():
			b := addr.As16()
			return p.denyReason(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		}
	}
	for _, r := range metadataRanges {
		if r.p.Contains(addr) {
			return r.name
		}
	}
	for _, r := range loopbackRanges {
		if r.p.Contains(addr) {
			if p.AllowLoopback {
				return ""
			}
			return r.name
		}
	}
	for _, r := range privateRanges {
		if r.p.Contains(addr) {
			if p.AllowPrivate {
				return ""
			}
			return r.name
		}
	}
	for _, r := range specialRanges {
		if r.p.Contains(addr) {
			return r.name
		}
	}
	if addr.Is6() && !globalUnicast.Contains(addr) {
		return "not a global unicast address"
	}
	return ""
}

// check decides whether host (as named by the caller) may be reached at ap.
func (p *SSRFPolicy) check(host string, ap netip.AddrPort) error {
	if len(p.Ports) > 0 && !slices.Contains(p.Ports, ap.Port()) {
		e := newErr(ErrBlocked, "", "Blocked by network policy: %s port %d is not allowed (allowed ports: %s); webfetch only connects to public internet addresses", host, ap.Port(), portList(p.Ports))
		e.Range = "port"
		return e
	}
	if reason := p.denyReason(ap.Addr()); reason != "" {
		return blockedErr(host, ap.Addr().WithZone("").String(), reason)
	}
	return nil
}

func blockedErr(host, ip, reason string) *Error {
	e := newErr(ErrBlocked, "", "Blocked by network policy: %s resolves to %s (%s); webfetch only connects to public internet addresses", host, ip, reason)
	e.Range = reason
	return e
}

func portList(ports []uint16) string {
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = strconv.Itoa(int(p))
	}
	return strings.Join(s, ", ")
}

// refusedName reports host names refused before any DNS query.
func refusedName(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	return h == "localhost" || strings.HasSuffix(h, ".localhost") || h == "localhost.localdomain"
}

// precheck refuses names and IP literals that can never be dialled under p, without DNS.
// Literals include the numeric IPv4 spellings a C resolver accepts (2130706433, 0x7f.1,
// 0177.0.0.1, 127.1), so a transport that resolves names itself cannot be steered by them.
func (p *SSRFPolicy) precheck(host string) error {
	h := strings.ToLower(host)
	switch {
	case refusedMetadataName(h):
		e := newErr(ErrBlocked, "", "Blocked by network policy: %s is a cloud metadata host name; webfetch only connects to public internet addresses", host)
		e.Range = "cloud metadata"
		return e
	case refusedName(h) && !p.AllowLoopback:
		e := newErr(ErrBlocked, "", "Blocked by network policy: %s is a local host name; webfetch only connects to public internet addresses", host)
		e.Range = "loopback"
		return e
	}
	addr, err := netip.ParseAddr(strings.Trim(host, "[]"))
	if err != nil {
		var ok bool
		if addr, ok = legacyIPv4(host); !ok {
			return nil
		}
	}
	if reason := p.denyReason(addr); reason != "" {
		e := newErr(ErrBlocked, "", "Blocked by network policy: %s is a refused address (%s); webfetch only connects to public internet addresses", addr.WithZone("").String(), reason)
		e.Range = reason
		return e
	}
	return nil
}

// refusedMetadataName reports the host names of cloud metadata services, refused whatever
// the policy admits (they resolve to refused addresses anyway; naming them gives a clear
// message before any DNS query).
func refusedMetadataName(host string) bool {
	switch strings.TrimSuffix(host, ".") {
	case "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal":
		return true
	}
	return false
}

// legacyIPv4 parses the numeric host spellings inet_aton accepts: one to four dot-separated
// parts in decimal, octal (leading 0) or hex (0x), the last part filling the remaining
// bytes, with an optional trailing dot.
func legacyIPv4(host string) (netip.Addr, bool) {
	host = strings.TrimSuffix(host, ".")
	parts := strings.Split(host, ".")
	if host == "" || len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, part := range parts {
		base, digits := 10, part
		switch {
		case len(part) > 1 && (part[:2] == "0x" || part[:2] == "0X"):
			base, digits = 16, part[2:]
			if digits == "" {
				digits = "0"
			}
		case len(part) > 1 && part[0] == '0':
			base, digits = 8, part[1:]
		}
		if digits == "" || strings.ContainsAny(digits, "+-_") {
			return netip.Addr{}, false
		}
		v, err := strconv.ParseUint(digits, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	last := len(vals) - 1
	var n uint64
	for i, v := range vals[:last] {
		if v > 255 {
			return netip.Addr{}, false
		}
		n |= v << (24 - 8*i)
	}
	if vals[last] >= 1<<(32-8*last) {
		return netip.Addr{}, false
	}
	n |= vals[last]
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// Resolver looks up the addresses of a host name; *net.Resolver implements it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

type dialFunc func(ctx context.Context, network, address string) (net.Conn, error)

type hostKey struct{}

// guardedDialer resolves names itself and dials each address through a dialer whose control
// hook checks the exact address being connected, so every hop, retry and DNS answer is
// checked at the moment of connection.
type guardedDialer struct {
	policy   *SSRFPolicy
	resolver Resolver
	dial     dialFunc // raw dial of an IP:port; tests record addresses here
}

func newRawDialer(p *SSRFPolicy) dialFunc {
	d := &net.Dialer{
		ControlContext: func(ctx context.Context, network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return newErr(ErrBlocked, "", "Blocked by network policy: cannot parse dialled address %q", address)
			}
			host, _ := ctx.Value(hostKey{}).(string)
			if host == "" {
				host = ap.Addr().String()
			}
			return p.check(host, ap)
		},
	}
	return d.DialContext
}

func (g *guardedDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("bad port in %q", address)
	}
	if err := g.policy.precheck(host); err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		addrs, err = g.resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, err
		}
	}
	ctx = context.WithValue(ctx, hostKey{}, host)
	var firstErr error
	for _, a := range addrs {
		ap := netip.AddrPortFrom(a.Unmap(), uint16(port))
		if a.Is4In6() {
			// Keep the mapped form for the check so the embedded address is judged, but
			// dial the plain IPv4 address.
			if err := g.policy.check(host, netip.AddrPortFrom(a, uint16(port))); err != nil {
				firstErr = cmpErr(firstErr, err)
				continue
			}
		}
		if err := g.policy.check(host, ap); err != nil {
			firstErr = cmpErr(firstErr, err)
			continue
		}
		conn, err := g.dial(ctx, network, ap.String())
		if err == nil {
			return conn, nil
		}
		firstErr = cmpErr(firstErr, err)
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("no addresses for %s", host)
	}
	return nil, firstErr
}

// cmpErr keeps a policy block in preference to other errors, so the caller learns why.
func cmpErr(prev, next error) error {
	if prev == nil {
		return next
	}
	if _, ok := asBlocked(prev); ok {
		return prev
	}
	return next
}
