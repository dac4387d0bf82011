// Command etcd is the upstream etcd server, unchanged: go.etcd.io/etcd/server/v3/etcdmain is what
// etcd's own main calls.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
