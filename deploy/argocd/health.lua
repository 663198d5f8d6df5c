-- Argo CD health of every deploy.agents.dev kind: read from the kstatus conditions the operator writes,
-- which every kind shares.
-- Suspended when paused; Progressing until the operator has reported on the current generation;
-- Degraded when Stalled (nothing changes without a spec change); Healthy when Ready.
local hs = { status = "Progressing", message = "waiting for the operator to report status" }
local meta = obj.metadata or {}
local annotations = meta.annotations or {}
if annotations["deploy.agents.dev/paused"] == "true" then
  hs.status = "Suspended"
  hs.message = "reconciliation is paused by the deploy.agents.dev/paused annotation"
  return hs
end
local status = obj.status
if status == nil or status.conditions == nil or #status.conditions == 0 then
  return hs
end
local generation = meta.generation or 0
if status.observedGeneration == nil or status.observedGeneration < generation then
  hs.message = "waiting for the operator to observe generation " .. generation
  return hs
end
local conditions = {}
for _, condition in ipairs(status.conditions) do
  conditions[condition.type] = condition
end
local function isTrue(name)
  local condition = conditions[name]
  return condition ~= nil and condition.status == "True"
end
local function message(name)
  local condition = conditions[name]
  if condition == nil then
    return ""
  end
  return (condition.reason or "") .. ": " .. (condition.message or "")
end
if isTrue("Stalled") then
  hs.status = "Degraded"
  hs.message = message("Stalled")
elseif isTrue("Ready") then
  hs.status = "Healthy"
  hs.message = message("Ready")
elseif isTrue("Reconciling") then
  hs.message = message("Reconciling")
elseif conditions["Ready"] ~= nil then
  hs.message = message("Ready")
end
return hs
