package main

// The management kinds as the vCluster Platform's typed clients see them: field names, JSON names
// and Go types follow the Platform's public API (management/v1 OwnedAccessKey,
// DirectClusterEndpointToken, VirtualClusterInstanceKubeConfig; storage/v1 AccessKeySpec and
// AccessKeyScope). Written for this test from those names; a value the server sends that does not
// fit these types (a string in a []byte, a number past int32, a field they lack) fails the strict
// decode, as it would break a generated clientset's List and informer.

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// OwnedAccessKey is cluster-scoped: the caller's own access keys.
type OwnedAccessKey struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   KeySpec   `json:"spec,omitempty"`
	Status KeyStatus `json:"status,omitempty"`
}

// OwnedAccessKeyList is what a List answers.
type OwnedAccessKeyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []OwnedAccessKey `json:"items"`
}

// KeySpec is the access key's desired state.
type KeySpec struct {
	DisplayName          string          `json:"displayName,omitempty"`
	Description          string          `json:"description,omitempty"`
	User                 string          `json:"user,omitempty"`
	Team                 string          `json:"team,omitempty"`
	Subject              string          `json:"subject,omitempty"`
	Groups               []string        `json:"groups,omitempty"`
	Key                  string          `json:"key,omitempty"`
	Disabled             bool            `json:"disabled,omitempty"`
	TTL                  int64           `json:"ttl,omitempty"`
	TTLAfterLastActivity bool            `json:"ttlAfterLastActivity,omitempty"`
	Scope                *Scope          `json:"scope,omitempty"`
	Type                 string          `json:"type,omitempty"`
	Identity             *KeyIdentity    `json:"identity,omitempty"`
	IdentityRefresh      *metav1.Time    `json:"identityRefresh,omitempty"`
	OIDCProvider         *KeyOIDCClient  `json:"oidcProvider,omitempty"`
	Parent               string          `json:"parent,omitempty"`
	OIDCLogin            *KeyOIDCSession `json:"oidcLogin,omitempty"`
}

// Scope is what a key (or a token issued with it) may reach.
type Scope struct {
	Roles           []ScopeRole           `json:"roles,omitempty"`
	Projects        []ScopeProject        `json:"projects,omitempty"`
	Spaces          []ScopeSpace          `json:"spaces,omitempty"`
	VirtualClusters []ScopeVirtualCluster `json:"virtualClusters,omitempty"`
	Clusters        []ScopeCluster        `json:"clusters,omitempty"`
	Rules           []ScopeRule           `json:"rules,omitempty"`
	AllowLoftCLI    bool                  `json:"allowLoftCli,omitempty"`
}

// ScopeRole is a named set of managed permissions.
type ScopeRole struct {
	Role            string   `json:"role,omitempty"`
	Projects        []string `json:"projects,omitempty"`
	VirtualClusters []string `json:"virtualClusters,omitempty"`
}

// ScopeProject selects a project ("*": all).
type ScopeProject struct {
	Project string `json:"project,omitempty"`
}

// ScopeSpace selects a space of a project.
type ScopeSpace struct {
	Project string `json:"project,omitempty"`
	Space   string `json:"space,omitempty"`
}

// ScopeVirtualCluster selects a virtual cluster of a project.
type ScopeVirtualCluster struct {
	Project        string `json:"project,omitempty"`
	VirtualCluster string `json:"virtualCluster,omitempty"`
}

// ScopeCluster selects a connected cluster.
type ScopeCluster struct {
	Cluster string `json:"cluster,omitempty"`
}

// ScopeRule is the deprecated rule form.
type ScopeRule struct {
	Verbs           []string              `json:"verbs,omitempty"`
	Resources       []ScopeGroupResources `json:"resources,omitempty"`
	Namespaces      []string              `json:"namespaces,omitempty"`
	NonResourceURLs []string              `json:"nonResourceURLs,omitempty"`
	RequestTargets  []string              `json:"requestTargets,omitempty"`
	Cluster         string                `json:"cluster,omitempty"`
	VirtualClusters []ScopeRuleCluster    `json:"virtualClusters,omitempty"`
}

// ScopeGroupResources names resources of one API group.
type ScopeGroupResources struct {
	Group         string   `json:"group,omitempty"`
	Resources     []string `json:"resources,omitempty"`
	ResourceNames []string `json:"resourceNames,omitempty"`
}

// ScopeRuleCluster names a virtual cluster a rule applies to.
type ScopeRuleCluster struct {
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
}

// KeyIdentity is the single-sign-on data of a key.
type KeyIdentity struct {
	UserID            string   `json:"userId,omitempty"`
	Username          string   `json:"username,omitempty"`
	PreferredUsername string   `json:"preferredUsername,omitempty"`
	Email             string   `json:"email,omitempty"`
	EmailVerified     bool     `json:"emailVerified,omitempty"`
	Groups            []string `json:"groups,omitempty"`
	Connector         string   `json:"connector,omitempty"`
	ConnectorData     []byte   `json:"connectorData,omitempty"`
}

// KeyOIDCClient describes the client a refresh token was issued to.
type KeyOIDCClient struct {
	ClientID    string `json:"clientId,omitempty"`
	Nonce       string `json:"nonce,omitempty"`
	RedirectURI string `json:"redirectUri,omitempty"`
	Scopes      string `json:"scopes,omitempty"`
}

// KeyOIDCSession is the deprecated OIDC login data.
type KeyOIDCSession struct {
	IDToken      []byte       `json:"idToken,omitempty"`
	AccessToken  []byte       `json:"accessToken,omitempty"`
	RefreshToken []byte       `json:"refreshToken,omitempty"`
	LastRefresh  *metav1.Time `json:"lastRefresh,omitempty"`
}

// KeyStatus is the observed state of a key.
type KeyStatus struct {
	LastActivity *metav1.Time `json:"lastActivity,omitempty"`
}

// DirectClusterEndpointToken is cluster-scoped and create-only.
type DirectClusterEndpointToken struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TokenSpec   `json:"spec,omitempty"`
	Status TokenStatus `json:"status,omitempty"`
}

// TokenSpec asks for a token.
type TokenSpec struct {
	TTL   int64  `json:"ttl,omitempty"`
	Scope *Scope `json:"scope,omitempty"`
}

// TokenStatus carries the issued token.
type TokenStatus struct {
	Token string `json:"token,omitempty"`
}

// VirtualClusterInstanceKubeConfig is the request and answer of the kubeconfig subresource.
type VirtualClusterInstanceKubeConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   KubeConfigSpec   `json:"spec,omitempty"`
	Status KubeConfigStatus `json:"status,omitempty"`
}

// KubeConfigSpec: certificateTTL is the Platform's (*int32); server and clientCert are the
// management API's contract's, which the Platform's current type lacks.
type KubeConfigSpec struct {
	CertificateTTL *int32 `json:"certificateTTL,omitempty"`
	Server         string `json:"server,omitempty"`
	ClientCert     bool   `json:"clientCert,omitempty"`
}

// KubeConfigStatus carries the kube config text.
type KubeConfigStatus struct {
	KubeConfig string `json:"kubeConfig,omitempty"`
}
