// flux-health computes the health of Kubernetes objects the way Flux's kustomize-controller does for
// kinds with custom health checks: the healthCheckExprs of a Kustomization, evaluated by
// github.com/fluxcd/pkg/runtime/cel (the status reader the controller registers for them).
//
//	flux-health KUSTOMIZATION.yaml [FILE|-]   # FILE: one object, a List (kubectl get -o json), or a JSON/YAML stream
//
// Prints one line per object: <kind>/<namespace>/<name> <STATUS> <message>, STATUS one of Current,
// InProgress, Failed, Unknown (an expression that does not evaluate: Flux keeps waiting on it), or
// <none> when no expression applies to the object's group and kind. Exit code 0 unless an input
// cannot be read or an expression does not parse (2).
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/fluxcd/pkg/apis/kustomize"
	"github.com/fluxcd/pkg/runtime/cel"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"agent-deploy.local/gitops-health/internal/objects"
)

// kustomization is the part of a kustomize.toolkit.fluxcd.io Kustomization this reads.
type kustomization struct {
	Spec struct {
		HealthCheckExprs []kustomize.CustomHealthCheck `json:"healthCheckExprs"`
	} `json:"spec"`
}

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 || os.Args[1] == "-h" || os.Args[1] == "--help" {
		fmt.Fprintln(os.Stderr, "usage: flux-health KUSTOMIZATION.yaml [FILE|-]")
		os.Exit(2)
	}
	text, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail(err)
	}
	var k kustomization
	if err := yaml.Unmarshal(text, &k); err != nil {
		fail(err)
	}
	newReader, err := cel.NewStatusReader(k.Spec.HealthCheckExprs)
	if err != nil {
		fail(err)
	}
	reader := newReader(nil)
	path := "-"
	if len(os.Args) == 3 {
		path = os.Args[2]
	}
	objs, err := objects.Read(path)
	if err != nil {
		fail(err)
	}
	for _, u := range objs {
		gk := schema.FromAPIVersionAndKind(u.GetAPIVersion(), u.GetKind()).GroupKind()
		if !reader.Supports(gk) {
			fmt.Println(objects.Line(objects.Ref(u), "<none>", "no health check expressions for "+gk.String()))
			continue
		}
		res, err := reader.ReadStatusForObject(context.Background(), nil, u)
		if err != nil {
			fmt.Println(objects.Line(objects.Ref(u), "Unknown", err.Error()))
			continue
		}
		msg := res.Message
		if res.Error != nil {
			msg = res.Error.Error()
		}
		fmt.Println(objects.Line(objects.Ref(u), string(res.Status), msg))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "flux-health:", err)
	os.Exit(2)
}
