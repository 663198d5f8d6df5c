// kstatus-check computes the kstatus status (Current / InProgress / Failed / Terminating / Unknown) of
// Kubernetes objects with sigs.k8s.io/cli-utils/pkg/kstatus/status, the library kpt, Config Sync and
// `kubectl wait`-style tooling use to decide whether a resource has reconciled.
//
//	kstatus-check [FILE|-]   # FILE: one object, a List (kubectl get -o json), or a JSON/YAML stream
//
// Prints one line per object: <kind>/<namespace>/<name> <STATUS> <message>. Exit code 0 unless the
// input cannot be read; an object status.Compute rejects is reported as Unknown with the error.
package main

import (
	"fmt"
	"os"

	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"agent-deploy.local/gitops-health/internal/objects"
)

func main() {
	path := "-"
	switch len(os.Args) {
	case 1:
	case 2:
		if os.Args[1] == "-h" || os.Args[1] == "--help" {
			fmt.Println("usage: kstatus-check [FILE|-]")
			return
		}
		path = os.Args[1]
	default:
		fmt.Fprintln(os.Stderr, "usage: kstatus-check [FILE|-]")
		os.Exit(2)
	}
	objs, err := objects.Read(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kstatus-check:", err)
		os.Exit(2)
	}
	for _, u := range objs {
		res, err := status.Compute(u)
		if err != nil {
			fmt.Println(objects.Line(objects.Ref(u), string(status.UnknownStatus), err.Error()))
			continue
		}
		fmt.Println(objects.Line(objects.Ref(u), string(res.Status), res.Message))
	}
}
