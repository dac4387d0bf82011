/**
 * The defaults a real cluster gives a new Pod: the API defaults of core/v1 (containers, volumes,
 * DNS and restart policies, scheduler), what the Priority and DefaultTolerationSeconds admission
 * plugins add, and the status the Pod strategy sets (phase Pending, QoS class). The ServiceAccount
 * admission plugin (token volume) is not imitated: the test control planes run without it too.
 */
import { isJsonObject, type JsonObject } from '../apimachinery/index.js';

/** File mode of projected files unless set: 0644. */
const DEFAULT_FILE_MODE = 0o644;
/** How long a Pod stays bound to a node that is not ready or unreachable, in seconds. */
const DEFAULT_TOLERATION_SECONDS = 300;
const NODE_TAINTS = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'];

/** `Always` for an image without tag or tagged `latest`, `IfNotPresent` otherwise (a digest included). */
function pullPolicyOf(image: unknown): string {
  if (typeof image !== 'string' || image.includes('@')) return 'IfNotPresent';
  const lastSlash = image.lastIndexOf('/');
  const lastColon = image.lastIndexOf(':');
  const tag = lastColon > lastSlash ? image.slice(lastColon + 1) : 'latest';
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultProbe(probe: unknown): unknown {
  if (!isJsonObject(probe)) return probe;
  const defaulted: JsonObject = { ...probe, timeoutSeconds: probe['timeoutSeconds'] ?? 1, periodSeconds: probe['periodSeconds'] ?? 10, successThreshold: probe['successThreshold'] ?? 1, failureThreshold: probe['failureThreshold'] ?? 3 };
  if (isJsonObject(probe['httpGet'])) defaulted['httpGet'] = { ...probe['httpGet'], scheme: probe['httpGet']['scheme'] ?? 'HTTP' };
  return defaulted;
}

function defaultFieldRef(source: unknown): unknown {
  if (!isJsonObject(source) || !isJsonObject(source['fieldRef'])) return source;
  return { ...source, fieldRef: { apiVersion: 'v1', ...source['fieldRef'] } };
}

function defaultContainer(container: unknown, hostNetwork: boolean): unknown {
  if (!isJsonObject(container)) return container;
  const defaulted: JsonObject = { ...container };
  if (Array.isArray(container['ports'])) {
    defaulted['ports'] = container['ports'].map((port: unknown) => {
      if (!isJsonObject(port)) return port;
      const hostPort = hostNetwork ? { hostPort: port['hostPort'] ?? port['containerPort'] } : {};
      return { ...port, ...hostPort, protocol: port['protocol'] ?? 'TCP' };
    });
  }
  if (Array.isArray(container['env'])) {
    defaulted['env'] = container['env'].map((variable: unknown) => (isJsonObject(variable) && isJsonObject(variable['valueFrom']) ? { ...variable, valueFrom: defaultFieldRef(variable['valueFrom']) } : variable));
  }
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
    if (container[probe] !== undefined) defaulted[probe] = defaultProbe(container[probe]);
  }
  defaulted['resources'] ??= {};
  defaulted['terminationMessagePath'] ??= '/dev/termination-log';
  defaulted['terminationMessagePolicy'] ??= 'File';
  defaulted['imagePullPolicy'] ??= pullPolicyOf(container['image']);
  return defaulted;
}

function defaultVolume(volume: unknown): unknown {
  if (!isJsonObject(volume)) return volume;
  const defaulted: JsonObject = { ...volume };
  for (const source of ['secret', 'configMap', 'projected']) {
    const value = volume[source];
    if (isJsonObject(value)) defaulted[source] = { ...value, defaultMode: value['defaultMode'] ?? DEFAULT_FILE_MODE };
  }
  const downward = volume['downwardAPI'];
  if (isJsonObject(downward)) {
    const items = Array.isArray(downward['items']) ? { items: downward['items'].map(defaultFieldRef) } : {};
    defaulted['downwardAPI'] = { ...downward, ...items, defaultMode: downward['defaultMode'] ?? DEFAULT_FILE_MODE };
  }
  const hostPath = volume['hostPath'];
  if (isJsonObject(hostPath)) defaulted['hostPath'] = { ...hostPath, type: hostPath['type'] ?? '' };
  return defaulted;
}

/** The tolerations DefaultTolerationSeconds adds: not-ready and unreachable for 300 s, unless tolerated already. */
function withDefaultTolerations(tolerations: unknown): unknown[] {
  const existing = Array.isArray(tolerations) ? tolerations : [];
  const tolerates = (key: string): boolean => existing.some((toleration) => isJsonObject(toleration) && (toleration['key'] === key || (toleration['key'] === undefined && toleration['operator'] === 'Exists')) && (toleration['effect'] === undefined || toleration['effect'] === 'NoExecute'));
  const added = NODE_TAINTS.filter((key) => !tolerates(key)).map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: DEFAULT_TOLERATION_SECONDS }));
  return [...existing, ...added];
}

/** BestEffort without any request or limit, Guaranteed when every container's requests equal its cpu and memory limits, else Burstable. */
function qosClassOf(spec: JsonObject): string {
  const containers = [...(Array.isArray(spec['containers']) ? spec['containers'] : []), ...(Array.isArray(spec['initContainers']) ? spec['initContainers'] : [])].filter(isJsonObject);
  const resourcesOf = (container: JsonObject): { requests: JsonObject; limits: JsonObject } => {
    const resources = isJsonObject(container['resources']) ? container['resources'] : {};
    const limits = isJsonObject(resources['limits']) ? resources['limits'] : {};
    // Requests default to limits.
    return { requests: { ...limits, ...(isJsonObject(resources['requests']) ? resources['requests'] : {}) }, limits };
  };
  const all = containers.map(resourcesOf);
  if (all.every(({ requests, limits }) => Object.keys(requests).length === 0 && Object.keys(limits).length === 0)) return 'BestEffort';
  const guaranteed = all.every(({ requests, limits }) => ['cpu', 'memory'].every((name) => limits[name] !== undefined && String(requests[name]) === String(limits[name])));
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/**
 * A copy of `podSpec` with the API defaults of core/v1 (SetDefaults_PodSpec and those of its
 * containers and volumes), as a Pod and a Pod template get them; existing values are kept.
 */
export function defaultPodSpec(podSpec: unknown): JsonObject {
  const spec: JsonObject = isJsonObject(podSpec) ? { ...podSpec } : {};
  const hostNetwork = spec['hostNetwork'] === true;
  for (const list of ['initContainers', 'containers']) {
    if (Array.isArray(spec[list])) spec[list] = spec[list].map((container: unknown) => defaultContainer(container, hostNetwork));
  }
  if (Array.isArray(spec['volumes'])) spec['volumes'] = spec['volumes'].map(defaultVolume);
  spec['restartPolicy'] ??= 'Always';
  spec['terminationGracePeriodSeconds'] ??= 30;
  spec['dnsPolicy'] ??= 'ClusterFirst';
  spec['securityContext'] ??= {};
  spec['schedulerName'] ??= 'default-scheduler';
  return spec;
}

/** Fills in `pod`'s defaults in place (create and update; existing values are kept). */
export function defaultPod(pod: JsonObject): void {
  const spec = defaultPodSpec(pod['spec']);
  spec['tolerations'] = withDefaultTolerations(spec['tolerations']);
  spec['priority'] ??= 0;
  spec['enableServiceLinks'] ??= true;
  spec['preemptionPolicy'] ??= 'PreemptLowerPriority';
  pod['spec'] = spec;
  const status = isJsonObject(pod['status']) ? pod['status'] : {};
  pod['status'] = { ...status, phase: status['phase'] ?? 'Pending', qosClass: status['qosClass'] ?? qosClassOf(spec) };
}
