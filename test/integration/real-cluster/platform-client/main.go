// Command platform-client talks to vcsync's management API as the vCluster Platform's typed
// clients do: client-go's REST client, the request bodies a clientset sends (no fieldValidation),
// and every answer decoded strictly (unknown or duplicate fields, wrong types, numbers past their Go
// type all fail) into the structs of types.go. It exercises create, get, list, watch, update,
// patch (JSON, merge, apply) and delete of OwnedAccessKey with every field set, create of
// DirectClusterEndpointToken and the kubeconfig subresource of VirtualClusterInstance, and prints
// `ok <step>` per step and `field <path> = <value>` for every field it set and read back. Any
// failure prints `FAIL <step>: <why>` and exits 1.
//
// Environment: PLATFORM_CLIENT_SERVER (the management API's base URL, with its path),
// PLATFORM_CLIENT_CA_FILE (its CA, PEM), PLATFORM_CLIENT_TOKEN (an admin access key),
// PLATFORM_CLIENT_INSTANCE (`<namespace>/<name>` of the virtual cluster instance).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	strictjson "sigs.k8s.io/json"
)

const (
	group   = "management.loft.sh"
	version = "v1"
	keys    = "ownedaccesskeys"
)

// failure ends the program: which step, and why.
type failure struct {
	step string
	err  error
}

func fail(step string, format string, args ...any) {
	panic(failure{step: step, err: fmt.Errorf(format, args...)})
}

func must(step string, err error) {
	if err != nil {
		panic(failure{step: step, err: err})
	}
}

// decodeStrict decodes an answer as a generated clientset would, but refusing anything its Go
// type cannot hold exactly: unknown fields, duplicate fields, case-mismatched names, wrong types.
func decodeStrict(step string, data []byte, into any) {
	strictErrs, err := strictjson.UnmarshalStrict(data, into)
	must(step, err)
	if len(strictErrs) > 0 {
		fail(step, "strict decoding: %v (answer: %s)", errors.Join(strictErrs...), data)
	}
}

// canonical is the JSON a Go client would send back for v: what "the same value" means here.
func canonical(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(data)
}

func expectSame(step string, got, want any) {
	if canonical(got) != canonical(want) {
		fail(step, "got %s, want %s", canonical(got), canonical(want))
	}
}

// leaves lists every leaf of v's JSON as `path = value`, sorted.
func leaves(prefix string, v any) []string {
	var generic any
	must("leaves", json.Unmarshal([]byte(canonical(v)), &generic))
	var out []string
	var walk func(path string, node any)
	walk = func(path string, node any) {
		switch typed := node.(type) {
		case map[string]any:
			for key, child := range typed {
				walk(path+"."+key, child)
			}
		case []any:
			for index, child := range typed {
				walk(fmt.Sprintf("%s[%d]", path, index), child)
			}
		default:
			value, _ := json.Marshal(typed)
			out = append(out, fmt.Sprintf("%s = %s", path, value))
		}
	}
	walk(prefix, generic)
	sort.Strings(out)
	return out
}

// statusOf is the HTTP status of an answer; a failure must be a Status that decodes strictly.
func statusOf(step string, result rest.Result) int {
	var code int
	result.StatusCode(&code)
	if raw, err := result.Raw(); err != nil {
		var status metav1.Status
		decodeStrict(step, raw, &status)
		if int(status.Code) != code {
			fail(step, "a %d answer carries a Status with code %d", code, status.Code)
		}
	}
	return code
}

func int32Ptr(v int32) *int32 { return &v }

func timeOf(text string) *metav1.Time {
	parsed, err := time.Parse(time.RFC3339, text)
	must("time", err)
	t := metav1.NewTime(parsed)
	return &t
}

// fullScope sets every field of the Platform's AccessKeyScope.
func fullScope() *Scope {
	return &Scope{
		Roles:           []ScopeRole{{Role: "loft-cli", Projects: []string{"p1"}, VirtualClusters: []string{"vc1"}}, {Role: "vcluster"}},
		Projects:        []ScopeProject{{Project: "p1"}},
		Spaces:          []ScopeSpace{{Project: "p1", Space: "s1"}},
		VirtualClusters: []ScopeVirtualCluster{{Project: "p1", VirtualCluster: "vc1"}},
		Clusters:        []ScopeCluster{{Cluster: "c1"}},
		Rules: []ScopeRule{{
			Verbs:           []string{"get", "list"},
			Resources:       []ScopeGroupResources{{Group: "", Resources: []string{"pods", "pods/log"}, ResourceNames: []string{"web"}}},
			Namespaces:      []string{"default"},
			NonResourceURLs: []string{"/healthz"},
			RequestTargets:  []string{"Management", "Cluster", "ProjectSpace", "ProjectVirtualCluster"},
			Cluster:         "c1",
			VirtualClusters: []ScopeRuleCluster{{Name: "vc1", Namespace: "vcluster-vc1"}},
		}},
		AllowLoftCLI: true,
	}
}

// fullKeySpec sets every field of the Platform's AccessKeySpec.
func fullKeySpec(key string) KeySpec {
	return KeySpec{
		DisplayName:          "platform client",
		Description:          "written by the client-go test program",
		User:                 "admin",
		Team:                 "platform",
		Subject:              "ci",
		Groups:               []string{"management:admins", "ci"},
		Key:                  key,
		Disabled:             false,
		TTL:                  86_400,
		TTLAfterLastActivity: true,
		Scope:                fullScope(),
		Type:                 "User",
		Identity: &KeyIdentity{
			UserID: "u-1", Username: "alice", PreferredUsername: "Alice", Email: "alice@example.com", EmailVerified: true,
			Groups: []string{"eng"}, Connector: "github", ConnectorData: []byte("upstream refresh token"),
		},
		IdentityRefresh: timeOf("2026-01-02T03:04:05Z"),
		OIDCProvider:    &KeyOIDCClient{ClientID: "cli", Nonce: "n-1", RedirectURI: "http://localhost:8000/callback", Scopes: "openid email"},
		Parent:          "parent-key",
		OIDCLogin: &KeyOIDCSession{
			IDToken: []byte("id token \x00\xff"), AccessToken: []byte("access token"), RefreshToken: []byte("refresh token"), LastRefresh: timeOf("2026-01-01T00:00:00Z"),
		},
	}
}

// shown is what the server answers for a key written with spec: never connectorData, and the
// key itself only in the create answer.
func shown(spec KeySpec, withKey bool) KeySpec {
	out := spec
	if !withKey {
		out.Key = ""
	}
	if spec.Identity != nil {
		identity := *spec.Identity
		identity.ConnectorData = nil
		out.Identity = &identity
	}
	return out
}

type program struct {
	ctx    context.Context
	client *rest.RESTClient
	config *rest.Config
}

func (p *program) keyAnswer(step string, result rest.Result) OwnedAccessKey {
	raw, err := result.Raw()
	if err != nil {
		fail(step, "%v (answer: %s)", err, raw)
	}
	var key OwnedAccessKey
	decodeStrict(step, raw, &key)
	if key.Kind != "OwnedAccessKey" || key.APIVersion != group+"/"+version {
		fail(step, "answered %s %s", key.APIVersion, key.Kind)
	}
	if key.Namespace != "" {
		fail(step, "a cluster-scoped key came back with namespace %q", key.Namespace)
	}
	return key
}

func (p *program) run() {
	const name = "platform-client-full"
	secret := "pLaTfOrMcLiEnT0123456789abcdefghijklmnopqrstuv"
	spec := fullKeySpec(secret)
	sent := OwnedAccessKey{TypeMeta: metav1.TypeMeta{APIVersion: group + "/" + version, Kind: "OwnedAccessKey"}, ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "platform-client"}}, Spec: spec}
	body, err := json.Marshal(sent)
	must("create", err)

	created := p.keyAnswer("create", p.client.Post().Resource(keys).SetHeader("Content-Type", "application/json").Body(body).Do(p.ctx))
	expectSame("create", created.Spec, shown(spec, true))
	fmt.Println("ok create OwnedAccessKey (every field; namespace cleared)")

	got := p.keyAnswer("get", p.client.Get().Resource(keys).Name(name).Do(p.ctx))
	expectSame("get", got.Spec, shown(spec, false))
	for _, line := range leaves("spec", shown(spec, false)) {
		fmt.Println("field " + line)
	}
	fmt.Println("ok get OwnedAccessKey")

	raw, err := p.client.Get().Resource(keys).Do(p.ctx).Raw()
	must("list", err)
	var list OwnedAccessKeyList
	decodeStrict("list", raw, &list)
	found := false
	for _, item := range list.Items {
		if item.Name == name {
			found = true
			expectSame("list", item.Spec, shown(spec, false))
		}
	}
	if !found {
		fail("list", "%s is not in the list", name)
	}
	fmt.Printf("ok list OwnedAccessKeys (%d items, all decoded)\n", len(list.Items))

	watchCtx, stopWatch := context.WithTimeout(p.ctx, 60*time.Second)
	defer stopWatch()
	stream, err := p.client.Get().Resource(keys).Param("watch", "true").Param("resourceVersion", list.ResourceVersion).Param("allowWatchBookmarks", "true").Stream(watchCtx)
	must("watch", err)
	defer stream.Close()
	events := make(chan OwnedAccessKey, 16)
	go p.readWatch(stream, name, events)

	got.Spec.DisplayName = "updated by PUT"
	body, err = json.Marshal(got)
	must("update", err)
	updated := p.keyAnswer("update", p.client.Put().Resource(keys).Name(name).SetHeader("Content-Type", "application/json").Body(body).Do(p.ctx))
	want := shown(spec, false)
	want.DisplayName = "updated by PUT"
	expectSame("update", updated.Spec, want)
	// The PUT carried no key (reads never show it): the stored one must still authenticate.
	withKey := rest.CopyConfig(p.config)
	withKey.BearerToken = secret
	keyClient, err := rest.RESTClientFor(withKey)
	must("update", err)
	if code := statusOf("update", keyClient.Get().Resource(keys).Do(p.ctx)); code != 200 {
		fail("update", "after a PUT without spec.key, the key answered %d", code)
	}
	fmt.Println("ok update OwnedAccessKey (PUT of the decoded object; the key still authenticates)")

	select {
	case event := <-events:
		expectSame("watch", event.Spec, want)
	case <-watchCtx.Done():
		fail("watch", "no MODIFIED event for the update")
	}
	fmt.Println("ok watch OwnedAccessKeys (events decoded)")

	jsonPatch := `[{"op":"add","path":"/metadata/annotations","value":{"platform-client/patched":"json"}},{"op":"replace","path":"/spec/description","value":"json patch"}]`
	patched := p.keyAnswer("json patch", p.client.Patch(types.JSONPatchType).Resource(keys).Name(name).Body([]byte(jsonPatch)).Do(p.ctx))
	want.Description = "json patch"
	expectSame("json patch", patched.Spec, want)
	if patched.Annotations["platform-client/patched"] != "json" {
		fail("json patch", "annotations %v", patched.Annotations)
	}
	fmt.Println("ok patch OwnedAccessKey (JSON patch)")

	merged := p.keyAnswer("merge patch", p.client.Patch(types.MergePatchType).Resource(keys).Name(name).Body([]byte(`{"spec":{"ttl":3600,"scope":{"allowLoftCli":false}}}`)).Do(p.ctx))
	want.TTL = 3600
	scope := *want.Scope
	scope.AllowLoftCLI = false
	want.Scope = &scope
	expectSame("merge patch", merged.Spec, want)
	fmt.Println("ok patch OwnedAccessKey (merge patch)")

	applied := want
	applied.DisplayName = "applied"
	applied.Key = ""
	config := OwnedAccessKey{TypeMeta: metav1.TypeMeta{APIVersion: group + "/" + version, Kind: "OwnedAccessKey"}, ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: applied}
	body, err = json.Marshal(config)
	must("apply", err)
	answer := p.keyAnswer("apply", p.client.Patch(types.ApplyPatchType).Resource(keys).Name(name).Param("fieldManager", "platform-client").Param("force", "true").Body(body).Do(p.ctx))
	expectSame("apply", answer.Spec, applied)
	fmt.Println("ok patch OwnedAccessKey (server-side apply)")

	p.cliOnlyKey()
	p.directClusterEndpointToken()
	p.kubeConfig()

	raw, err = p.client.Delete().Resource(keys).Name(name).Do(p.ctx).Raw()
	must("delete", err)
	var kind metav1.TypeMeta
	must("delete", json.Unmarshal(raw, &kind))
	if kind.Kind == "Status" {
		var status metav1.Status
		decodeStrict("delete", raw, &status)
	} else {
		p.keyAnswer("delete", p.client.Get().Resource(keys).Name(name).Do(p.ctx)) // still finalizing: must decode too
	}
	if code := statusOf("delete", p.client.Get().Resource(keys).Name(name).Do(p.ctx)); code != 404 {
		fail("delete", "after delete, get answered %d, want 404 NotFound", code)
	}
	fmt.Println("ok delete OwnedAccessKey")
}

// readWatch sends the first MODIFIED event of `name` to events; every event must decode.
func (p *program) readWatch(stream io.Reader, name string, events chan<- OwnedAccessKey) {
	decoder := json.NewDecoder(stream)
	for {
		var event struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := decoder.Decode(&event); err != nil {
			return
		}
		var key OwnedAccessKey
		if event.Type == "ERROR" {
			fmt.Printf("FAIL watch: an ERROR event: %s\n", event.Object)
			os.Exit(1)
		}
		strictErrs, err := strictjson.UnmarshalStrict(event.Object, &key)
		if err != nil || len(strictErrs) > 0 {
			fmt.Printf("FAIL watch: a %s event does not decode: %v %v (%s)\n", event.Type, err, strictErrs, event.Object)
			os.Exit(1)
		}
		if event.Type == "MODIFIED" && key.Name == name {
			events <- key
		}
	}
}

// cliOnlyKey: a key whose scope is only `allowLoftCli: true` reads but does not write.
func (p *program) cliOnlyKey() {
	const name = "platform-client-cli-only"
	spec := KeySpec{User: "admin", Groups: []string{"management:admins"}, Type: "User", Scope: &Scope{AllowLoftCLI: true}}
	body, err := json.Marshal(OwnedAccessKey{TypeMeta: metav1.TypeMeta{APIVersion: group + "/" + version, Kind: "OwnedAccessKey"}, ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec})
	must("cli-only key", err)
	created := p.keyAnswer("cli-only key", p.client.Post().Resource(keys).SetHeader("Content-Type", "application/json").Body(body).Do(p.ctx))
	expectSame("cli-only key", created.Spec.Scope, spec.Scope)
	config := rest.CopyConfig(p.config)
	config.BearerToken = created.Spec.Key
	cli, err := rest.RESTClientFor(config)
	must("cli-only key", err)
	must("cli-only key list", cli.Get().Resource(keys).Do(p.ctx).Error())
	other, err := json.Marshal(OwnedAccessKey{TypeMeta: metav1.TypeMeta{APIVersion: group + "/" + version, Kind: "OwnedAccessKey"}, ObjectMeta: metav1.ObjectMeta{Name: "platform-client-not-allowed"}, Spec: KeySpec{User: "admin"}})
	must("cli-only key", err)
	if code := statusOf("cli-only key", cli.Post().Resource(keys).SetHeader("Content-Type", "application/json").Body(other).Do(p.ctx)); code != 403 {
		fail("cli-only key", "creating a key with a CLI-only key answered %d, want 403 Forbidden", code)
	}
	must("cli-only key delete", p.client.Delete().Resource(keys).Name(name).Do(p.ctx).Error())
	fmt.Println("ok allowLoftCli: a CLI-only key lists keys and may not create one")
}

func (p *program) directClusterEndpointToken() {
	spec := TokenSpec{TTL: 600, Scope: fullScope()}
	body, err := json.Marshal(DirectClusterEndpointToken{TypeMeta: metav1.TypeMeta{APIVersion: group + "/" + version, Kind: "DirectClusterEndpointToken"}, ObjectMeta: metav1.ObjectMeta{Namespace: "default"}, Spec: spec})
	must("token", err)
	raw, err := p.client.Post().Resource("directclusterendpointtokens").SetHeader("Content-Type", "application/json").Body(body).Do(p.ctx).Raw()
	must("token", err)
	var token DirectClusterEndpointToken
	decodeStrict("token", raw, &token)
	expectSame("token", token.Spec, spec)
	if strings.Count(token.Status.Token, ".") != 2 || token.Namespace != "" {
		fail("token", "token %q, namespace %q", token.Status.Token, token.Namespace)
	}
	for _, line := range leaves("directClusterEndpointToken.spec", spec) {
		fmt.Println("field " + line)
	}
	fmt.Println("ok create DirectClusterEndpointToken (every field)")
}

func (p *program) kubeConfig() {
	instance := strings.SplitN(os.Getenv("PLATFORM_CLIENT_INSTANCE"), "/", 2)
	if len(instance) != 2 {
		fail("kubeconfig", "PLATFORM_CLIENT_INSTANCE is not <namespace>/<name>")
	}
	spec := KubeConfigSpec{CertificateTTL: int32Ptr(3600), Server: "https://vc1.platform-client.test:8443", ClientCert: true}
	body, err := json.Marshal(VirtualClusterInstanceKubeConfig{TypeMeta: metav1.TypeMeta{APIVersion: group + "/" + version, Kind: "VirtualClusterInstanceKubeConfig"}, ObjectMeta: metav1.ObjectMeta{Name: instance[1], Namespace: instance[0]}, Spec: spec})
	must("kubeconfig", err)
	raw, err := p.client.Post().Namespace(instance[0]).Resource("virtualclusterinstances").Name(instance[1]).SubResource("kubeconfig").SetHeader("Content-Type", "application/json").Body(body).Do(p.ctx).Raw()
	must("kubeconfig", err)
	var answer VirtualClusterInstanceKubeConfig
	decodeStrict("kubeconfig", raw, &answer)
	expectSame("kubeconfig", answer.Spec, spec)
	config, err := clientcmd.Load([]byte(answer.Status.KubeConfig))
	must("kubeconfig", err)
	user := config.AuthInfos["vcluster"]
	if user == nil || len(user.ClientCertificateData) == 0 || len(user.ClientKeyData) == 0 {
		fail("kubeconfig", "no client certificate for the user vcluster in %s", answer.Status.KubeConfig)
	}
	current := config.Contexts[config.CurrentContext]
	if current == nil || config.Clusters[current.Cluster] == nil || config.Clusters[current.Cluster].Server != spec.Server {
		fail("kubeconfig", "the current context does not reach %s", spec.Server)
	}
	for _, line := range leaves("virtualClusterInstanceKubeConfig.spec", spec) {
		fmt.Println("field " + line)
	}
	fmt.Println("ok create VirtualClusterInstanceKubeConfig (every field; kube config loads)")
}

func main() {
	server, caFile, token := os.Getenv("PLATFORM_CLIENT_SERVER"), os.Getenv("PLATFORM_CLIENT_CA_FILE"), os.Getenv("PLATFORM_CLIENT_TOKEN")
	if server == "" || caFile == "" || token == "" {
		fmt.Println("FAIL setup: set PLATFORM_CLIENT_SERVER, PLATFORM_CLIENT_CA_FILE and PLATFORM_CLIENT_TOKEN")
		os.Exit(2)
	}
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	config := &rest.Config{
		Host:            server,
		APIPath:         "/apis",
		BearerToken:     token,
		UserAgent:       "vcsync-platform-client-test",
		TLSClientConfig: rest.TLSClientConfig{CAFile: caFile},
		ContentConfig: rest.ContentConfig{
			GroupVersion:         &schema.GroupVersion{Group: group, Version: version},
			ContentType:          "application/json",
			NegotiatedSerializer: serializer.NewCodecFactory(scheme).WithoutConversion(),
		},
	}
	client, err := rest.RESTClientFor(config)
	if err != nil {
		fmt.Printf("FAIL setup: %v\n", err)
		os.Exit(1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	defer func() {
		if recovered := recover(); recovered != nil {
			if f, ok := recovered.(failure); ok {
				fmt.Printf("FAIL %s: %v\n", f.step, f.err)
				os.Exit(1)
			}
			panic(recovered)
		}
	}()
	(&program{ctx: ctx, client: client, config: config}).run()
	fmt.Println("ok all")
}
