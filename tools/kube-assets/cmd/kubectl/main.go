// Command kubectl is the upstream kubectl, unchanged: the same main as
// k8s.io/kubernetes/cmd/kubectl, whose command lives in k8s.io/kubectl.
package main

import (
	"os"

	_ "k8s.io/client-go/plugin/pkg/client/auth" // client auth plugins
	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	// Upstream sets klog's verbosity before building the command (which may log), since flag
	// parsing happens only inside RunNoErrOutput.
	logs.GlogSetter(cmd.GetLogVerbosity(os.Args)) //nolint:errcheck
	if err := cli.RunNoErrOutput(cmd.NewDefaultKubectlCommand()); err != nil {
		util.CheckErr(err)
	}
}
