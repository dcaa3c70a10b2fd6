#!/usr/bin/env python
"""Write the synthetic sumo_claims fixture ``fixture/climate_claims_raw.xlsx``.

The layout of ``climate_claims_raw.xlsx`` (HELM's SUMO web-claims file): a first row that ``read_excel(skiprows=1)``
skips, then the header ``Claim_id, Claim, Title, Doc_text, Label``. The 24 articles and titles are invented for
lm-eval-enterprise (nothing copied from SUMO): each document is its own opening sentences followed by a number of
shared background sentences (:data:`FILLER`, cycled), which sets its length. Two rows have an empty Title /
Doc_text that HELM's ``dropna`` removes, two cells carry literal ``_x000D_`` markers (as the genuine sheet), one
document has 3,814 words and two have fewer than 100, for the test length filter: 22 rows → train 4 / test 18 → 16
after the 100–3,700-word filter. Byte-reproducible (fixed document and zip timestamps).

    .venv/bin/python tasks/climate/sumo_claims/make_fixture.py [--out DIR]
"""

from pathlib import Path

from openpyxl import Workbook

from lm_eval_enterprise.data import generator_main, write_manifest
from lm_eval_enterprise.data.fixtures import save_workbook

TITLE_ROW = "SUMO web claims: climate subset (synthetic fixture rows for lm-eval-enterprise)"
HEADER = ["Claim_id", "Claim", "Title", "Doc_text", "Label"]
FILLER = [
    "Funding for the monitoring network was renewed after a public consultation last spring.",
    "Critics argued that the models still underestimate some feedbacks in the climate system.",
    "The data set has been made public so that other teams can check the calculations.",
    "Residents interviewed for this article described changes they had noticed over their lifetimes.",
    "Economists estimated the costs of adaptation for farms, ports and municipal water systems.",
    "The study also looked at how emissions policies could change the trends by mid century.",
    "A spokesperson for the agency said additional measurements are planned for next year.",
    "Researchers compared satellite records with ground stations spanning several decades.",
    "The authors cautioned that regional variability remains large from one year to the next.",
    "Independent groups reached broadly similar conclusions using different statistical methods.",
    "Local officials said the findings would inform planning decisions over the coming years.",
    "The report was reviewed by scientists who were not involved in the original analysis.",
]
ROWS = [  # (Claim_id, Claim, Title, Doc_text as (own sentences, number of FILLER sentences, first FILLER index), Label)
    (
        101,
        "Glaciers in the Andes are losing ice faster than expected",
        "Andean glaciers shrink at record pace, survey finds",
        (
            "A new survey of more than two hundred glaciers in the tropical Andes shows that ice loss has doubled since the early two thousands. Meltwater from these glaciers supplies drinking water to several large cities during the dry season. ",
            8,
            7,
        ),
        True,
    ),
    (
        101,
        "Glaciers in the Andes are losing ice faster than expected",
        "What melting Andean ice means for La Paz",
        (
            "Water managers in the Bolivian capital are preparing for a future with far less glacial runoff. New reservoirs and leak repairs are being planned as the ice retreats up the valleys. ",
            7,
            8,
        ),
        True,
    ),
    (
        102,
        "Sea level rise has accelerated over the last thirty years",
        "Satellites confirm faster sea level rise",
        (
            "Three decades of radar altimetry show the rate of global sea level rise increasing year after year. Thermal expansion of warming oceans and melting land ice together explain the acceleration. ",
            10,
            9,
        ),
        True,
    ),
    (
        103,
        "Wind power is too unreliable to run an electricity grid",
        "Fact check: can grids run on wind?",
        (
            "Grid operators in several countries already balance large shares of wind generation using forecasting, interconnectors and storage._x000D_\nClaims that wind cannot contribute to a stable grid are not supported by operating experience._x000D_\n",
            8,
            10,
        ),
        False,
    ),
    (
        104,
        "Coral reefs can recover quickly after bleaching",
        "Reef recovery slower than hoped after repeated bleaching",
        (
            "Marine biologists tracking reefs after consecutive heat waves found that recovery takes a decade or more. Repeated bleaching events leave too little time for slow growing corals to return. ",
            6,
            11,
        ),
        False,
    ),
    (
        105,
        "Heat waves are becoming more frequent in Europe",
        "Europe warming faster than global average, report says_x000D_",
        (
            "Summer heat extremes across Europe have become more frequent and more intense since the nineteen eighties. Changes in atmospheric circulation add to the warming from greenhouse gases. ",
            10,
            0,
        ),
        True,
    ),
    (
        106,
        "Planting trees alone can offset all fossil fuel emissions",
        "Tree planting is no substitute for emission cuts",
        (
            "Forestry experts say that even very large planting programs would absorb only a fraction of annual emissions. New forests also take decades to grow and can be lost to fire or drought. ",
            8,
            1,
        ),
        False,
    ),
    (
        107,
        "Arctic sea ice extent has declined since satellite records began",
        "Arctic summer ice hits one of its lowest levels",
        (
            "The minimum extent of Arctic sea ice this September was among the lowest since measurements began in the late nineteen seventies. Thin first year ice now dominates regions once covered by thick multiyear ice. ",
            8,
            2,
        ),
        True,
    ),
    (
        108,
        "Carbon dioxide is plant food so more of it is harmless",
        "Why more carbon dioxide is not simply good for plants",
        (
            "Crop scientists note that any fertilisation effect is offset by heat stress, drought and lower nutrient content in grains. Weeds and pests also respond to the changing conditions. ",
            8,
            3,
        ),
        False,
    ),
    (
        109,
        "Electric cars produce fewer lifetime emissions than petrol cars",
        "Lifecycle study favours electric vehicles",
        (
            "An analysis of manufacturing, charging and disposal finds that battery electric cars emit less over their lifetime in most markets. The advantage grows as electricity grids add more renewable power. ",
            9,
            4,
        ),
        True,
    ),
    (
        110,
        "The ozone hole causes global warming",
        "Ozone hole and climate change are different problems",
        (
            "Atmospheric chemists explain that ozone depletion and global warming have different causes, although some chemicals contribute to both. The recovery of the ozone layer has not reversed warming. ",
            1,
            5,
        ),
        False,
    ),
    (
        111,
        "Wildfire seasons in the western United States are getting longer",
        "Longer fire seasons strain western firefighters",
        (
            "Fire agencies report that the season now starts earlier in spring and ends later in autumn than it did forty years ago. Drier fuels and warmer nights allow fires to spread overnight. ",
            11,
            6,
        ),
        True,
    ),
    (
        112,
        "Permafrost thaw is releasing methane in Siberia",
        "Thawing ground bubbles with methane in Siberia",
        (
            "Field teams measured methane rising from thaw lakes and collapsing ground in northern Siberia. Scientists are working to estimate how much carbon could be released this century. ",
            8,
            7,
        ),
        True,
    ),
    (
        113,
        "The sun is responsible for recent warming",
        "Solar activity cannot explain recent warming",
        (
            "Measurements of solar output show no upward trend since the nineteen fifties while temperatures have risen sharply. The pattern of warming in the lower atmosphere and cooling above also points to greenhouse gases. ",
            7,
            8,
        ),
        False,
    ),
    (
        114,
        "Renewable energy is now cheaper than coal in many countries",
        "Solar and wind undercut coal on cost",
        (
            "Auction results and cost surveys show new solar and wind farms delivering power more cheaply than new coal plants in most large economies. Financing costs remain a barrier in some developing countries. ",
            9,
            9,
        ),
        True,
    ),
    (
        115,
        "Hurricanes are getting stronger because of warmer oceans",
        "Warmer seas fuel rapid hurricane intensification",
        (
            "Storm researchers found that the share of hurricanes undergoing rapid intensification has risen as sea surface temperatures climbed. Heavier rainfall from storms is another observed change. ",
            8,
            10,
        ),
        True,
    ),
    (
        116,
        "Climate models have failed to predict observed warming",
        "Old climate models got warming about right",
        (
            "A review of projections made since the nineteen seventies found that most models predicted global temperature rise well once actual emissions were taken into account. ",
            6,
            11,
        ),
        False,
    ),
    (
        117,
        "Snowpack in the Alps is declining",
        "Alpine ski resorts face shorter snow seasons",
        (
            "Records from weather stations in the Alps show the snow season shortening by more than a month at low elevations. Resorts are investing in artificial snow and summer tourism. ",
            291,
            0,
        ),
        True,
    ),
    (
        118,
        "Volcanoes emit more carbon dioxide than humans",
        "Volcanic emissions are small compared with human ones",
        (
            "Geologists estimate that volcanoes release roughly one percent of the carbon dioxide emitted by human activities each year. ",
            1,
            1,
        ),
        False,
    ),
    (
        119,
        "Droughts are reducing hydropower output",
        "Low rivers cut hydropower across the region",
        (
            "Operators of dams reported lower electricity output after a second dry winter in a row. Grid managers turned to gas plants and imports to fill the gap. ",
            9,
            2,
        ),
        True,
    ),
    (
        120,
        "Ocean acidification threatens shellfish",
        "Acidifying seas hurt oyster hatcheries",
        (
            "Hatcheries on the Pacific coast have had to buffer seawater to keep oyster larvae alive. Upwelling of corrosive water has become more common in recent years. ",
            8,
            3,
        ),
        True,
    ),
    (
        121,
        "Bird migrations are shifting earlier in spring",
        "Songbirds arrive earlier as springs warm",
        (
            "Volunteer records from banding stations show many songbird species arriving days earlier than half a century ago. ",
            8,
            4,
        ),
        True,
    ),
    (122, "Lake levels are falling in central Asia", None, ("Satellite images show shrinking lakes. ", 9, 10), True),
    (123, "Mangroves store large amounts of carbon", "Mangroves are carbon vaults", None, True),
]


def document(spec: tuple[str, int, int] | None) -> str | None:
    if spec is None:
        return None
    own, n, first = spec
    return own + " ".join(FILLER[(first + i) % len(FILLER)] for i in range(n))


def write(out: Path) -> None:
    wb = Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    ws.append([TITLE_ROW])
    ws.append(HEADER)
    for cid, claim, title, doc, label in ROWS:
        ws.append([cid, claim, title, document(doc), label])
    save_workbook(wb, out / "climate_claims_raw.xlsx")
    write_manifest(
        out,
        "sumo_claims",
        "Synthetic climate articles and titles written for lm-eval-enterprise (invented "
        "text, not from the real data), in the layout of climate_claims_raw.xlsx: a first row that "
        "read_excel(skiprows=1) skips, then the header Claim_id, Claim, Title, Doc_text, Label. 24 rows: 2 "
        "with an empty Title/Doc_text that HELM's dropna removes, literal _x000D_ markers in two cells, one "
        "3,814-word and two short (<100 words) documents for the test length filter: 22 -> train 4 / test "
        "18 -> 16 after the 100-3,700-word filter. Generated by tasks/climate/sumo_claims/make_fixture.py.",
        {"train": 4, "test": 16},
    )


if __name__ == "__main__":
    generator_main(write)
