/**
 * The addon's look-up objects → the session's public types: absent optional fields become
 * null, so fronts see one stable shape (and JSON keeps every key).
 */
import type { ObjectRef, Value } from '../query/schema.js';
import type { JsClassDescription, JsDominatorView, JsField, JsObjectDetail, JsObjectRef, JsPathStep, JsReferenceList } from '../native/index.js';
import type { ClassView, DominatorView, FieldView, ObjectKind, ObjectView, PathStep, ReferenceList } from './types.js';

const ref = (r: JsObjectRef): ObjectRef => ({ objectId: r.objectId, address: r.address, className: r.className, label: r.label });

function field(f: JsField): FieldView {
  return { name: f.name, type: f.type, declaredBy: f.declaredBy ?? null, value: (f.value ?? null) as Value };
}

export function toObjectView(d: JsObjectDetail): ObjectView {
  return {
    object: ref(d.object),
    kind: d.kind as ObjectKind,
    shallowSize: d.shallowSize,
    retainedSize: d.retainedSize ?? null,
    reachable: d.reachable ?? null,
    arrayLength: d.arrayLength ?? null,
    describedClass: d.describedClass ?? null,
    gcRoots: d.gcRoots,
    heap: d.heap ?? null,
    fields: d.fields.map(field),
    fieldCount: d.fieldCount,
    contentsMissing: d.contentsMissing,
  };
}

export function toReferenceList(l: JsReferenceList): ReferenceList {
  return { items: l.items.map((r) => ({ object: r.object ? ref(r.object) : null, address: r.address, field: r.field })), total: l.total };
}

export function toPathStep(s: JsPathStep): PathStep {
  return { object: ref(s.object), via: s.via, skipped: s.skipped };
}

export function toDominatorView(v: JsDominatorView): DominatorView {
  return {
    object: ref(v.object),
    retainedSize: v.retainedSize ?? null,
    dominator: v.dominator ? ref(v.dominator) : null,
    inTree: v.inTree,
    top: v.top ?? null,
    children: v.children.map((c) => ({ object: ref(c.object), retainedSize: c.retainedSize, shallowSize: c.shallowSize })),
    childCount: v.childCount,
  };
}

export function toClassView(c: JsClassDescription): ClassView {
  return {
    name: c.name,
    classObject: ref(c.classObject),
    superChain: c.superChain,
    fields: c.fields.map(field),
    statics: c.statics.map(field),
    instanceSize: c.instanceSize,
    instances: c.instances,
    instanceBytes: c.instanceBytes,
    instancesWithSubclasses: c.instancesWithSubclasses,
    subclasses: c.subclasses,
    loader: c.loader,
  };
}
