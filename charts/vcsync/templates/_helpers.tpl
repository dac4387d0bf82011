{{/* The name of every object of a target=host release: the release name, with "-vcsync" unless it has it. */}}
{{- define "vcsync.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels every object carries. */}}
{{- define "vcsync.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{ include "vcsync.selectorLabels" . }}
{{- end -}}

{{/* The labels that select the Deployment's pods (never change them: a Deployment's selector is immutable). */}}
{{- define "vcsync.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The virtual cluster's name; rendering fails, saying what to set, when it is empty. */}}
{{- define "vcsync.vclusterName" -}}
{{- required "vcluster.name is empty: set it to the name of the virtual cluster vcsync runs beside (--set vcluster.name=my-vc)" .Values.vcluster.name -}}
{{- end -}}

{{- define "vcsync.serviceAccountName" -}}
{{- default (include "vcsync.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{- define "vcsync.kubeconfigSecretName" -}}
{{- default (printf "vcsync-kubeconfig-%s" (include "vcsync.vclusterName" .)) .Values.vcluster.kubeconfigSecret.name -}}
{{- end -}}

{{/* repository:tag, or repository@digest when a digest is set. */}}
{{- define "vcsync.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* Whether the config puts synced objects in several host namespaces (then RBAC is cluster-wide). */}}
{{- define "vcsync.multiNamespace" -}}
{{- if dig "sync" "toHost" "namespaces" "enabled" false .Values.config -}}true{{- end -}}
{{- end -}}
