"""Images (invariant 2 and the operator's image admission facts): one NIM image everywhere it runs,
pinned, and a runtime version the operator can read."""

from __future__ import annotations

from dgdlint.cosmos import (
    image_repository,
    image_tag,
    is_cosmos_graph,
    is_nim_image,
    is_semver,
    is_streaming,
    nim_workers,
    placeholder_in,
    runs_streaming_frontend,
    runtime_image_tag,
)
from dgdlint.downloads import download_jobs
from dgdlint.model import Model
from dgdlint.rules.registry import Hit, rule
from dgdlint.webhook_model import graph_views


@rule(
    name="nim-image-mismatch", code="DGD201", severity="error", family="images",
    title="One NIM image across workers, download Job and streaming frontend",
    rationale="""The download Job fills the cache with the profile of the image it runs; workers on
    another image look for another profile and download again, or fail. The streaming adapter must
    match the workers' protocol version.""",
    remediation="Use the same NIM image reference (tag or digest) in every worker, the download Job and "
                "the streaming frontend.",
    reads=("DynamoGraphDeployment", "Job"),
)
def nim_image_mismatch(model: Model):
    for graph in model.graphs:
        if not is_cosmos_graph(graph):
            continue
        workers = nim_workers(graph)
        reference = workers[0]
        expected = reference.main.image

        def anchor(graph=graph, reference=reference):  # placed only for a finding: a place may cost a re-read
            return graph.obj.location(reference.main.image_path, f"{reference.name}'s image")

        for worker in workers[1:]:
            if worker.main.image != expected:
                yield Hit(graph.obj, worker.main.image_path,
                          f"{worker.label} runs {worker.main.image!r} but {reference.name} runs {expected!r}",
                          related=[anchor()])
        if is_streaming(graph):
            for frontend in graph.frontends:
                # The adapter from another tag or digest of the workers' image (another image altogether is
                # streaming-frontend-adapter's finding).
                if runs_streaming_frontend(frontend.main) and frontend.main.image != expected and \
                        image_repository(frontend.main.image) == image_repository(expected):
                    yield Hit(graph.obj, frontend.main.image_path,
                              f"{frontend.label} runs {frontend.main.image!r} but the workers run {expected!r}",
                              related=[anchor()])
        for job, container in download_jobs(model, graph):
            if container.image != expected:
                yield Hit(graph.obj, reference.main.image_path,
                          f"{reference.label} runs {expected!r} but {job.label} downloads with "
                          f"{container.image!r}: the cache will not hold the workers' profile",
                          related=[job.obj.location(container.image_path, f"{job.label}'s image")])


def _all_images(model: Model):
    """Every container image that is a real reference (placeholders are placeholder-value's, an empty image
    main-image-missing's)."""
    for owner, container, _pod in model.all_containers():
        if container.image and not placeholder_in(container.image):
            yield owner, container


@rule(
    name="image-tag-pinned", code="DGD202", severity="error", family="images",
    title="Images carry an explicit tag or digest, never `latest`",
    rationale="""`latest` (or no tag, which means `latest`) changes under a running deployment: two pods
    of one component can run different builds, and the download Job can fetch a profile for a build
    the workers never run.""",
    remediation="Pin the image to a release tag (e.g. `:2.1.0`) or a digest (`@sha256:...`).",
    reads=("DynamoGraphDeployment", "Job", "Pod", "Deployment"),
)
def image_tag_pinned(model: Model):
    for owner, container in _all_images(model):
        tag, digest = image_tag(container.image)
        if digest:
            continue
        if tag is None or tag == "latest":
            what = "no tag (so `latest`)" if tag is None else "the tag `latest`"
            yield Hit(container.obj, container.image_path,
                      f"{owner.label}: image {container.image!r} has {what}")


@rule(
    name="main-image-missing", code="DGD203", severity="error", family="admission",
    title="Every component names its main image",
    rationale="""The operator rejects a component whose main container has no image at admission;
    caught here, it is caught before the apply.""",
    remediation="Set the main container's image (v1alpha1: extraPodSpec.mainContainer.image; v1beta1: the "
                "`main` container of podTemplate).",
)
def main_image_missing(model: Model):
    for view in graph_views(model):
        for component in view.components:
            main = component.component.main
            if not component.main_declared:
                yield Hit(view.obj, component.path + ("podTemplate", "spec", "containers"),
                          f"{component.component.label} has no container named `main`: the operator finds no "
                          f"main image")
            elif not main.image:
                yield Hit(view.obj, main.path, f"{component.component.label} has no main image")


def _overridable(model: Model, view, component) -> bool:
    """Whether the release the check is for has runtimeVersionOverride (1.1.0 does not)."""
    return model.release.has_field(view.obj.version, view.component_schema_path("runtimeVersionOverride"))


@rule(
    name="runtime-version-required", code="DGD204", severity="error", family="admission",
    title="A non-semver image tag comes with runtimeVersionOverride",
    rationale="""The operator (1.4+) reads the Dynamo runtime version from the main image's tag, strictly
    `MAJOR.MINOR.PATCH` with an optional `v`, pre-release and build, no leading zeros, spaces around it
    ignored; when the tag is not that (`:latest`, `:my-tag`, `:1.5`, a digest alone) its webhook
    rejects the component unless `runtimeVersionOverride` says which runtime the image carries. On an
    update it lets an unchanged image and override through (see `dgdlint diff`). Not reported for a
    release whose schema has no `runtimeVersionOverride` (1.1.0), which reads no runtime version.""",
    remediation="Add `runtimeVersionOverride: \"<dynamo runtime version>\"` to the component, or use a "
                "semver tag.",
)
def runtime_version_required(model: Model):
    for view in graph_views(model):
        graph = view.graph
        for component_view in view.components:
            component = component_view.component
            image = component.main.image
            if not image or component.runtime_version_override or placeholder_in(image) or \
                    not component_view.main_declared or not _overridable(model, view, component_view):
                continue
            _, digest = image_tag(image)
            tag = runtime_image_tag(image)  # spaces around the reference and the tag trimmed, as Go trims them
            if not is_semver(tag):
                reason = "a digest" if digest and not tag else ("no tag" if not tag else f"tag {tag!r}")
                yield Hit(graph.obj, component.main.image_path,
                          f"{component.label}: image {image!r} has {reason}, not semver, and the component "
                          "has no runtimeVersionOverride")


@rule(
    name="runtime-version-advised", code="DGD205", severity="warning", family="admission",
    title="A NIM image names its Dynamo runtime with runtimeVersionOverride",
    rationale="""The operator takes the Dynamo runtime version from `runtimeVersionOverride`, else from the
    main image's semver tag, and renders runtime-version-gated pod settings by it (from 1.5.0; a
    changed version also rolls the workers). A NIM image's tag is the NIM release (e.g. 2.1.0), not the
    Dynamo runtime it bundles (1.5.0), so without an override the operator renders for a runtime the
    image does not have. The webhook accepts this silently (it has no such warning): this is dgdlint's
    advice. Not reported for a release whose schema has no `runtimeVersionOverride` (1.1.0).""",
    remediation="Add `runtimeVersionOverride: \"1.5.0\"` (the runtime the NIM bundles) to every component "
                "that runs the NIM image.",
    fixable="""Adds `runtimeVersionOverride` with the runtime the NIM image bundles (after the component's
    type), where dgdlint's data knows it for the image's repository and tag (nvcr.io/nim/nvidia/cosmos3:2.1.0:
    "1.5.0"). Another tag, a mirror under another name and an image pinned by digest are left for a
    person.""",
)
def runtime_version_advised(model: Model):
    for view, component_view, tag in nim_components_without_override(model):
        component = component_view.component
        yield Hit(view.obj, component.main.image_path,
                  f"{component.label}: NIM image tag {tag!r} is the NIM release, not the Dynamo runtime version, "
                  "and the component has no runtimeVersionOverride")


def nim_components_without_override(model: Model):
    """(graph view, component view, image tag) of each component that runs a NIM image with a semver tag and
    no runtimeVersionOverride, in a release that has the field: what runtime-version-advised reports and
    its fix reads."""
    for view in graph_views(model):
        for component_view in view.components:
            component = component_view.component
            image = component.main.image
            if not image or component.runtime_version_override or not is_nim_image(image) or \
                    not _overridable(model, view, component_view):
                continue
            tag, _ = image_tag(image)
            if is_semver(tag):
                yield view, component_view, tag
