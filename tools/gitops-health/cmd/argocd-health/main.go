// argocd-health runs an Argo CD resource health check (Lua) the way the Argo CD application controller
// does (see argocd.go), over objects from a file, or over an Argo CD style test directory.
//
//	argocd-health [--open-libs] SCRIPT.lua FILE|-            one line per object: <kind>/<namespace>/<name> <status> <message>
//	argocd-health [--open-libs] --argocd-cm CM.yaml FILE|-   pick each object's script from an argocd-cm ConfigMap
//	                                                         (resource.customizations.health.<group>_<kind>)
//	argocd-health [--open-libs] --test DIR                   DIR/health.lua, DIR/health_test.yaml
//	                                                         (tests: [{inputPath, healthStatus: {status, message}}]);
//	                                                         prints PASS/FAIL per case, exit 1 on any FAIL
//
// FILE holds one object, a List (kubectl get -o json), or a JSON/YAML stream. --open-libs runs with the full
// gopher-lua standard library (string, math, os, io, ...), as Argo CD does for built-in scripts, for
// argocd-cm scripts with resource.customizations.useOpenLibs.<group>_<kind>: "true", and in its own
// resource_customizations test harness; without it, a custom script gets only what an argocd-cm script
// gets by default (package, base, table; require("os") → {time, date}).
// A status printed as "<empty>" is the empty status Argo CD records when the script returns nil, an
// empty table, or a table whose fields have the wrong JSON types; "<none>" means no script applies.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"agent-deploy.local/gitops-health/internal/objects"
)

func main() {
	openLibs := flag.Bool("open-libs", false, "run with the full Lua standard library (useOpenLibs: true)")
	testDir := flag.String("test", "", "run DIR/health_test.yaml against DIR/health.lua")
	cmPath := flag.String("argocd-cm", "", "take each object's health script from this argocd-cm ConfigMap (YAML)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), `usage:
  argocd-health [--open-libs] SCRIPT.lua FILE|-
  argocd-health [--open-libs] --argocd-cm ARGOCD-CM.yaml FILE|-
  argocd-health [--open-libs] --test DIR`)
		flag.PrintDefaults()
	}
	flag.Parse()
	args := flag.Args()

	switch {
	case *testDir != "":
		if len(args) != 0 {
			flag.Usage()
			os.Exit(2)
		}
		os.Exit(runTests(*testDir, *openLibs))
	case *cmPath != "":
		if len(args) > 1 {
			flag.Usage()
			os.Exit(2)
		}
		overrides, err := readArgoCDCM(*cmPath)
		if err != nil {
			fail(err)
		}
		objs := readObjects(argOr(args, 0, "-"))
		for _, u := range objs {
			key := configMapKey(u)
			ov, ok := overrides.lookup(key)
			script, useOpen := "", *openLibs
			if ok {
				script, useOpen = ov.healthLua, ov.useOpenLibs || *openLibs
			}
			hs := resourceHealth(u, script, useOpen)
			if hs == nil {
				fmt.Printf("%s <none> no health check registered for %s in %s\n", objects.Ref(u), key, *cmPath)
				continue
			}
			printHealth(u, hs)
		}
	default:
		if len(args) < 1 || len(args) > 2 {
			flag.Usage()
			os.Exit(2)
		}
		script, err := os.ReadFile(args[0])
		if err != nil {
			fail(err)
		}
		for _, u := range readObjects(argOr(args, 1, "-")) {
			printHealth(u, resourceHealth(u, string(script), *openLibs))
		}
	}
}

func argOr(args []string, i int, def string) string {
	if i < len(args) {
		return args[i]
	}
	return def
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "argocd-health:", err)
	os.Exit(2)
}

func readObjects(path string) []*unstructured.Unstructured {
	objs, err := objects.Read(path)
	if err != nil {
		fail(err)
	}
	return objs
}

func showStatus(s string) string {
	if s == "" {
		return "<empty>"
	}
	return s
}

func printHealth(u *unstructured.Unstructured, hs *HealthStatus) {
	fmt.Println(objects.Line(objects.Ref(u), showStatus(hs.Status), hs.Message))
}

// ---- Argo CD's resource_customizations test convention (util/lua/health_test.go) ----

type testFile struct {
	Tests []struct {
		InputPath    string       `json:"inputPath"`
		HealthStatus HealthStatus `json:"healthStatus"`
	} `json:"tests"`
}

// runTests mirrors TestLuaHealthScript: the input YAML is unmarshalled with sigs.k8s.io/yaml into a
// map (numbers float64), ExecuteHealthLua runs on it (no deletion short-circuit), and the result must
// equal healthStatus exactly (status and message; a missing message means "").
func runTests(dir string, openLibs bool) int {
	script, err := os.ReadFile(filepath.Join(dir, "health.lua"))
	if err != nil {
		fail(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "health_test.yaml"))
	if err != nil {
		fail(err)
	}
	var tf testFile
	if err := yaml.Unmarshal(raw, &tf); err != nil {
		fail(fmt.Errorf("health_test.yaml: %w", err))
	}
	libs := "argocd-cm default libs (package, base, table, require(\"os\"))"
	if openLibs {
		libs = "open libs (as Argo CD's own test harness and built-in scripts)"
	}
	fmt.Printf("# %s: %d case(s), %s\n", dir, len(tf.Tests), libs)
	failed := 0
	for _, tc := range tf.Tests {
		got, err := runTestCase(filepath.Join(dir, tc.InputPath), string(script), openLibs)
		want := tc.HealthStatus
		switch {
		case err != nil:
			failed++
			fmt.Printf("FAIL %s: error: %s\n", tc.InputPath, objects.OneLine(err.Error()))
		case *got != want:
			failed++
			fmt.Printf("FAIL %s: want %s %q, got %s %q\n", tc.InputPath, showStatus(want.Status), want.Message,
				showStatus(got.Status), got.Message)
		default:
			fmt.Println(objects.Line("PASS "+tc.InputPath+":", showStatus(got.Status), got.Message))
		}
	}
	fmt.Printf("# %d passed, %d failed\n", len(tf.Tests)-failed, failed)
	if failed > 0 {
		return 1
	}
	return 0
}

func runTestCase(path, script string, openLibs bool) (*HealthStatus, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	obj := map[string]any{}
	if err := yaml.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	return executeHealthLua(&unstructured.Unstructured{Object: obj}, script, openLibs)
}

// ---- argocd-cm resource.customizations.<type>.<group_kind> keys (util/settings/settings.go) ----

type override struct {
	healthLua   string
	useOpenLibs bool
}

type overrides map[string]override

// lookup mirrors VM.GetHealthScript for argocd-cm overrides: the exact group/kind key, then wildcard keys
// (Argo CD matches those with gobwas/glob; here only '*' and '?' are understood).
func (o overrides) lookup(key string) (override, bool) {
	if ov, ok := o[key]; ok && ov.healthLua != "" {
		return ov, true
	}
	for pattern, ov := range o {
		if ov.healthLua != "" && strings.ContainsAny(pattern, "*?") && globMatch(pattern, key) {
			return ov, true
		}
	}
	return override{}, false
}

func globMatch(pattern, s string) bool {
	if pattern == "" {
		return s == ""
	}
	switch pattern[0] {
	case '*':
		for i := 0; i <= len(s); i++ {
			if globMatch(pattern[1:], s[i:]) {
				return true
			}
		}
		return false
	case '?':
		return s != "" && globMatch(pattern[1:], s[1:])
	}
	return s != "" && s[0] == pattern[0] && globMatch(pattern[1:], s[1:])
}

// configMapKey mirrors lua.GetConfigMapKey: "group/Kind", or "Kind" for the core group.
func configMapKey(u *unstructured.Unstructured) string {
	gvk := u.GroupVersionKind()
	if gvk.Group == "" {
		return gvk.Kind
	}
	return gvk.Group + "/" + gvk.Kind
}

func readArgoCDCM(path string) (overrides, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := yaml.Unmarshal(raw, &cm); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if v := cm.Data["resource.customizations"]; v != "" {
		fmt.Fprintf(os.Stderr, "argocd-health: %s: the single-key resource.customizations form is not read; only split keys\n", path)
	}
	out := overrides{}
	for k, v := range cm.Data {
		if !strings.HasPrefix(k, "resource.customizations") {
			continue
		}
		parts := strings.SplitN(k, ".", 4)
		if len(parts) < 4 {
			continue
		}
		key, err := convertToOverrideKey(parts[3])
		if err != nil {
			return nil, err
		}
		if key == "all" {
			key = "*/*"
		}
		ov := out[key]
		switch parts[2] {
		case "health":
			ov.healthLua = v
		case "useOpenLibs":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			ov.useOpenLibs = b
		case "actions", "ignoreDifferences", "ignoreResourceUpdates", "knownTypeFields":
		default:
			return nil, fmt.Errorf("resource customization type %s not supported", parts[2])
		}
		out[key] = ov
	}
	return out, nil
}

func convertToOverrideKey(groupKind string) (string, error) {
	parts := strings.Split(groupKind, "_")
	if len(parts) == 2 {
		return parts[0] + "/" + parts[1], nil
	} else if len(parts) == 1 && groupKind != "" {
		return groupKind, nil
	}
	return "", fmt.Errorf("group kind should be in format `resource.customizations.<type>.<group_kind>` or resource.customizations.<type>.<kind>`, got group kind: '%s'", groupKind)
}
