"""`dgdlint render`: the manifests of a chart, as `helm template` prints them (the real Helm engine)."""

from __future__ import annotations

import sys

from dgdlint.commands import inputs, options

NAME = "render"
HELP = "render a chart and print the manifests (like helm template)"
EXAMPLE = "dgdlint render --chart charts/cosmos3-reasoner -f values/nano-fp8.yaml > manifests.yaml"


def add_arguments(parser) -> None:
    options.add_render_options(parser, render_out=False)
    options.add_namespace_option(parser)


def run(args) -> int:
    from dgdlint.render import EngineMissing, RenderError, RenderRequest, as_stream, render_chart

    if not args.chart:
        raise options.UsageProblem("render needs --chart CHART (a chart directory or a packaged .tgz)")
    inputs.check_chart_arguments(args)
    with inputs.chart_directory(args.chart) as chart:
        request = RenderRequest(chart=chart, values_files=args.values, set_values=args.set_values,
                                set_string_values=args.set_string_values, release=args.release,
                                namespace=args.namespace)
        try:
            templates = render_chart(request, engine=args.engine)
        except EngineMissing as error:
            raise options.UsageProblem(str(error)) from None
        except RenderError as error:
            print(f"dgdlint: {args.chart}: the chart did not render: {error}", file=sys.stderr)
            return options.EXIT_FINDINGS
    sys.stdout.write(as_stream(templates))
    return options.EXIT_OK
