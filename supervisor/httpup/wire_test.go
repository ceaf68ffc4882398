package httpup

import (
	"net"
	"testing"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

func TestAliveSeesAClosedPeer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	peer := <-accepted
	if !alive(c) {
		t.Fatal("an open connection reads as closed")
	}
	peer.Close()
	testwait.For(t, 0, "the peer's close seen", func() bool { return !alive(c) })
}
