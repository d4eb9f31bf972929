"""Home: briefcase, book, alarm clock, candle, vase, globe, hourglass, lantern, piggy bank, potted plant.

Each is the form a person names at a glance: a twin-bell alarm clock, a school globe with continents
on a stand, a pink piggy bank with snout and coin slot, a hurricane lantern...
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import trimesh
from PIL import Image, ImageDraw, ImageFont

from tabletest.assets.builtin.parts import Material, Part
from tabletest.assets.builtin.recipes.common import CHROME, FACE_UP, Z_TO_MINUS_Y, front_extrude, merge
from tabletest.assets.builtin.shapes import (
    arc,
    box,
    cylinder,
    decal,
    ellipsoid,
    extrude,
    lathe,
    leaf,
    loop,
    moved,
    rounded_rect,
    tube,
    uv_sphere,
)

BRASS = Material("brass", (0.85, 0.66, 0.3), roughness=0.3, metallic=1.0)
DARK_WOOD = Material("dark wood", (0.36, 0.2, 0.09), roughness=0.55)


def _bands_texture(bands: list[tuple[float, float, tuple[int, int, int]]], base: tuple[int, int, int],
                   height: int = 256) -> Image.Image:
    """Horizontal colour bands for a lathe's v (0 = bottom of the profile): each (v0, v1, colour)."""
    img = Image.new("RGB", (8, height), base)
    draw = ImageDraw.Draw(img)
    for v0, v1, colour in bands:
        draw.rectangle((0, round((1 - v1) * height), 8, round((1 - v0) * height)), fill=colour)
    return img


def briefcase() -> list[Part]:
    """A leather briefcase standing up: rounded case, lid seam, two brass latches, a top handle."""
    leather = Material("leather", (0.36, 0.18, 0.07), roughness=0.55)
    width, height, depth = 0.44, 0.32, 0.11
    case = moved(front_extrude(rounded_rect(width, height, 0.025), depth), (0, 0, height / 2))
    seam = moved(front_extrude(rounded_rect(width + 0.004, 0.008, 0.003), depth + 0.004), (0, 0, height - 0.06))
    latch = box((0.04, 0.012, 0.032))
    latches = merge(*(moved(latch, (x, -depth / 2 - 0.004, height - 0.075)) for x in (-0.14, 0.14)))
    mounts = merge(*(moved(box((0.03, 0.03, 0.012)), (x, 0, height - 0.003)) for x in (-0.07, 0.07)))
    grip = tube(arc(0.06, 10, 170, points=20) + (0, 0, height + 0.0), 0.011, sections=12)
    return [
        Part("case", case, leather),
        Part("seam", seam, Material("seam", (0.2, 0.1, 0.04), roughness=0.6)),
        Part("latches", latches, BRASS),
        Part("handle mounts", mounts, BRASS),
        Part("handle", grip, Material("handle leather", (0.15, 0.08, 0.03), roughness=0.5)),
    ]


def _page_edges_texture() -> Image.Image:
    """Paper seen edge-on: cream with fine darker lines (the v direction runs across the pages)."""
    rng = np.random.default_rng(7)
    shade = 235 - rng.integers(0, 28, size=128)
    rows = np.stack([shade, shade - 8, shade - 30], 1).clip(0, 255).astype(np.uint8)
    return Image.fromarray(np.repeat(rows[::-1, None, :], 8, axis=1))


def _cover_texture() -> Image.Image:
    """A cloth-bound cover: deep red with a gold frame and gold title lines."""
    img = Image.new("RGB", (340, 480), (140, 25, 30))
    draw = ImageDraw.Draw(img)
    gold = (220, 180, 80)
    draw.rectangle((22, 22, 318, 458), outline=gold, width=5)
    draw.text((170, 150), "STORIES", fill=gold, font=ImageFont.load_default(size=44), anchor="mm")
    draw.line((90, 200, 250, 200), fill=gold, width=4)
    draw.text((170, 240), "& TALES", fill=gold, font=ImageFont.load_default(size=30), anchor="mm")
    return img


def book() -> list[Part]:
    """A closed hardback lying flat: cloth cover with a gold title, rounded spine at −X, page edges showing."""
    width, length, board = 0.17, 0.24, 0.004
    pages_h = 0.028
    cloth = Material("book cloth", (0.55, 0.1, 0.12), roughness=0.7)
    covers = merge(box((width, length, board)), box((width, length, board), bottom_z=board + pages_h))
    pages = moved(extrude(rounded_rect(width - 0.008, length - 0.008, 0.001), pages_h), (0.002, 0, board))
    spine = moved(cylinder(1.0, length, 32), (0, length / 2, 0), Z_TO_MINUS_Y)  # a unit rod along y, squashed next
    spine.apply_scale((0.009, 1, pages_h / 2 + board))
    spine.apply_translation((-width / 2, 0, board + pages_h / 2))
    cover_art = moved(decal(width - 0.002, length - 0.002), (0, 0, 2 * board + pages_h + 0.0004), FACE_UP)
    return [
        Part("covers", covers, cloth),
        Part("spine", spine, cloth),
        Part("pages", pages, Material("pages", (1, 1, 1), roughness=0.8, texture=_page_edges_texture())),
        Part("cover art", cover_art, Material("cover", (1, 1, 1), roughness=0.7, texture=_cover_texture())),
    ]


def _clock_face_texture() -> Image.Image:
    """A white dial with minute ticks and the numbers 1 to 12."""
    size = 512
    img = Image.new("RGB", (size, size), (250, 248, 240))
    draw = ImageDraw.Draw(img)
    c = size / 2
    for tick in range(60):
        a = np.radians(tick * 6)
        r0 = c * (0.84 if tick % 5 else 0.78)
        draw.line((c + r0 * np.sin(a), c - r0 * np.cos(a), c + c * 0.92 * np.sin(a), c - c * 0.92 * np.cos(a)),
                  fill=(20, 20, 20), width=8 if tick % 5 == 0 else 3)
    font = ImageFont.load_default(size=64)
    for hour in range(1, 13):
        a = np.radians(hour * 30)
        at = (c + c * 0.6 * np.sin(a), c - c * 0.6 * np.cos(a))
        draw.text(at, str(hour), fill=(20, 20, 20), font=font, anchor="mm")
    return img


def alarm_clock() -> list[Part]:
    """A twin-bell alarm clock: round red case, white face with hands, two bells and a hammer, legs, loop."""
    red = Material("clock red", (0.78, 0.08, 0.07), roughness=0.3, metallic=0.3)
    radius, depth, cz = 0.05, 0.045, 0.065
    case = moved(lathe([(0, 0), (0.044, 0), (0.05, 0.006), (radius, depth - 0.004), (0.047, depth), (0, depth)], 48),
                 (0, depth / 2, cz), (-90, 0, 0))
    t = np.linspace(0, 2 * np.pi, 12)
    bezel = moved(lathe(np.stack([0.046 + 0.004 * np.cos(t), 0.004 * np.sin(t)], 1), 48), (0, -depth / 2, cz),
                  Z_TO_MINUS_Y)
    face = moved(decal(0.088, 0.088, elliptical=True), (0, -depth / 2 - 0.0005, cz))
    pivot = (0, -depth / 2 - 0.0015, cz)
    hands = merge(
        moved(box((0.004, 0.001, 0.026)), pivot, (0, -60, 0)),  # hour hand towards 10
        moved(box((0.003, 0.001, 0.037)), pivot, (0, 60, 0)),  # minute hand towards 2
    )
    bells, legs = [], []
    for side in (-1, 1):
        a = np.radians(40)
        at = (side * 0.05 * np.sin(a), 0.004, cz + 0.05 * np.cos(a))
        bell = lathe([(0, 0.006), (0.021, 0.006), (0.022, 0.009), (0.019, 0.02), (0.011, 0.027), (0.0, 0.029)], 32)
        bells.append(moved(bell, at, (0, side * 40, 0)))
        foot = np.radians(140)
        legs.append(moved(lathe([(0, 0), (0.008, 0), (0.006, 0.02), (0, 0.02)], 16),
                          (side * 0.052 * np.sin(foot), 0.01, cz + 0.052 * np.cos(foot) + 0.01), (0, side * 200, 0)))
    hammer = merge(cylinder(0.0025, 0.02, 10).apply_translation((0, 0, cz + radius - 0.002)),
                    uv_sphere(0.006, 8, 12).apply_translation((0, 0, cz + radius + 0.02)))
    loop = tube(arc(0.022, 0, 180, points=16) + (0, 0.005, cz + radius + 0.01), 0.003, sections=8)
    return [
        Part("case", case, red),
        Part("bezel", bezel, CHROME),
        Part("face", face, Material("dial", (1, 1, 1), roughness=0.4, texture=_clock_face_texture())),
        Part("hands", hands, Material("hands", (0.05, 0.05, 0.05), roughness=0.4)),
        Part("bells", merge(*bells), CHROME),
        Part("hammer and loop", merge(hammer, loop), CHROME),
        Part("legs", merge(*legs), CHROME),
    ]


def _flame_texture() -> Image.Image:
    return _bands_texture([(0.0, 0.25, (90, 120, 230)), (0.25, 0.6, (255, 245, 190)), (0.6, 1.0, (255, 170, 40))],
                          base=(255, 200, 80))


def candle() -> list[Part]:
    """A lit pillar candle on a brass dish: ivory wax with a melted top and drips, black wick, flame."""
    r, h = 0.033, 0.095
    wax = lathe([(0, 0), (r, 0), (r, h), (r - 0.002, h + 0.002), (r - 0.008, h - 0.004), (0, h - 0.006)], 40)
    rng = np.random.default_rng(3)
    drips = []
    for a in np.radians([20, 115, 250, 310]):
        length = rng.uniform(0.015, 0.035)
        z = np.linspace(h, h - length, 6)
        drips.append(tube(np.stack([np.full(6, r * np.cos(a)), np.full(6, r * np.sin(a)), z], 1),
                          np.linspace(0.0035, 0.0025, 6), sections=8))
    wick = tube([(0, 0, h - 0.007), (0, 0, h + 0.006), (0.001, 0, h + 0.012)], 0.0012, sections=6)
    flame = lathe([(0, h + 0.008), (0.005, h + 0.011), (0.0075, h + 0.018), (0.006, h + 0.028), (0.003, h + 0.038),
                   (0, h + 0.046)], 24)
    dish = lathe([(0, -0.006), (0.05, -0.006), (0.055, 0.004), (0.052, 0.005), (0.046, -0.002), (0, -0.002)], 40)
    return [
        Part("wax", merge(wax, *drips), Material("wax", (0.97, 0.86, 0.62), roughness=0.45)),
        Part("wick", wick, Material("wick", (0.05, 0.04, 0.03), roughness=0.8)),
        Part("flame", flame, Material("flame", (1, 1, 1), roughness=0.3, texture=_flame_texture())),
        Part("dish", dish, BRASS),
    ]


def vase() -> list[Part]:
    """A blue-and-white porcelain vase: bulbous body, narrow neck, flared open mouth."""
    outer = [(0, 0), (0.045, 0), (0.05, 0.006), (0.085, 0.06), (0.097, 0.11), (0.09, 0.16), (0.06, 0.215),
             (0.038, 0.25), (0.037, 0.27), (0.052, 0.3)]
    inner = [(0.047, 0.3), (0.032, 0.27), (0.033, 0.25), (0.0, 0.24)]
    blue = (25, 50, 140)
    texture = _bands_texture([(0.02, 0.06, blue), (0.28, 0.31, blue), (0.33, 0.55, (60, 95, 175)), (0.57, 0.6, blue),
                              (0.78, 0.84, blue), (0.86, 1.0, (20, 35, 90))], base=(240, 242, 246))
    return [Part("body", lathe(outer + inner, 48), Material("porcelain", (1, 1, 1), roughness=0.15, texture=texture))]


# Coarse outlines of the continents as (longitude, latitude) in degrees: enough to read as a world map.
CONTINENTS = [
    [(-168, 66), (-156, 71), (-125, 70), (-95, 72), (-80, 73), (-65, 60), (-55, 52), (-66, 44), (-76, 35), (-81, 25),
     (-90, 30), (-97, 26), (-97, 20), (-88, 15), (-83, 9), (-78, 8), (-85, 13), (-95, 16), (-105, 20), (-112, 30),
     (-118, 33), (-124, 40), (-124, 48), (-135, 58), (-150, 60), (-165, 60)],
    [(-55, 60), (-45, 60), (-20, 70), (-20, 80), (-40, 83), (-65, 80), (-72, 77), (-55, 70)],
    [(-80, 9), (-75, 11), (-62, 10), (-50, 0), (-35, -5), (-39, -15), (-48, -26), (-58, -35), (-65, -42), (-68, -52),
     (-72, -50), (-74, -42), (-71, -30), (-70, -18), (-76, -14), (-81, -5), (-80, 0)],
    [(-10, 36), (-9, 43), (-2, 44), (-5, 48), (0, 50), (5, 54), (8, 57), (5, 62), (15, 69), (25, 71), (40, 67),
     (60, 70), (80, 73), (100, 77), (120, 73), (140, 72), (160, 70), (180, 68), (180, 62), (163, 60), (155, 58),
     (142, 52), (140, 45), (135, 35), (127, 37), (122, 30), (120, 23), (110, 20), (106, 10), (100, 13), (100, 6),
     (103, 1),
     (98, 8), (95, 16), (90, 22), (80, 15), (77, 8), (72, 20), (66, 25), (57, 25), (56, 22), (52, 17), (43, 12),
     (36, 28), (34, 31), (28, 36), (26, 40), (20, 39), (16, 38), (12, 44), (8, 44), (3, 42), (-4, 36)],
    [(-17, 21), (-10, 30), (-6, 35), (10, 37), (20, 31), (32, 31), (35, 27), (43, 12), (51, 12), (42, -2), (40, -15),
     (35, -25), (28, -34), (18, -35), (12, -18), (13, -5), (8, 4), (-8, 4), (-17, 15)],
    [(114, -22), (122, -18), (130, -12), (137, -12), (142, -11), (146, -19), (153, -26), (150, -37), (140, -38),
     (131, -31), (115, -34)],
    [(-5, 50), (1, 51), (-2, 56), (-5, 58), (-6, 55)],
    [(130, 31), (140, 35), (142, 40), (141, 45), (139, 38)],
    [(44, -25), (49, -16), (50, -13), (44, -16)],
    [(109, 1), (118, 6), (119, -1), (114, -4)],
    [(95, 5), (106, -6), (104, -5)],
    [(-180, -72), (-90, -73), (0, -70), (90, -67), (180, -72), (180, -90), (-180, -90)],
]


def _world_map_texture() -> Image.Image:
    """An equirectangular world map (north up, longitude −180 at the left) in school-globe colours."""
    w, h = 1024, 512
    img = Image.new("RGB", (w, h), (60, 120, 200))
    draw = ImageDraw.Draw(img)
    for outline in CONTINENTS:
        draw.polygon([((lon + 180) / 360 * w, (90 - lat) / 180 * h) for lon, lat in outline], fill=(95, 160, 70),
                     outline=(70, 120, 50))
    draw.line((0, h / 2, w, h / 2), fill=(200, 60, 50), width=2)
    return img


def globe() -> list[Part]:
    """A desk globe: map-textured sphere on a tilted axis, brass half-meridian, pedestal and round base."""
    r, centre_z, axis_tilt = 0.12, 0.205, 23.5
    # the lathe's u = 0 is +X; turning by 100° brings longitude 10°E (Europe and Africa) to the −Y front
    sphere = moved(moved(uv_sphere(r, 32, 64), rotate_deg=(0, 0, 100)), (0, 0, centre_z), (0, axis_tilt, 0))
    meridian = moved(tube(arc(r + 0.008, -95, 95, points=40) * (-1, 1, 1), 0.004, sections=8), (0, 0, centre_z),
                     (0, axis_tilt, 0))
    pin = cylinder(0.005, 0.02, 12)
    pins = moved(merge(moved(pin, (0, 0, r - 0.005)), moved(pin, (0, 0, -r - 0.015))), (0, 0, centre_z),
                 (0, axis_tilt, 0))
    low = meridian.vertices[np.argmin(meridian.vertices[:, 2])]
    pedestal = lathe([(0, 0), (0.012, 0), (0.009, 0.02), (0.014, 0.03), (0.008, 0.045), (0.006, low[2]),
                      (0, low[2])], 24)
    pedestal.apply_translation((low[0], low[1], 0))
    base = lathe([(0, 0), (0.085, 0), (0.085, 0.012), (0.075, 0.022), (0.04, 0.026), (0, 0.026)], 48)
    base.apply_translation((low[0], low[1], 0))
    return [
        Part("globe", sphere, Material("map", (1, 1, 1), roughness=0.3, texture=_world_map_texture())),
        Part("meridian", merge(meridian, pins), BRASS),
        Part("stand", merge(pedestal, base), DARK_WOOD),
    ]


def hourglass() -> list[Part]:
    """An hourglass: two glass bulbs with sand showing, wooden end plates and three turned posts."""
    plate_h, glass_h, r_plate = 0.014, 0.152, 0.052

    def radius(z: np.ndarray) -> np.ndarray:
        """Two mirrored bulbs, widest near the plates, tapering to a narrow neck at mid-height."""
        u = 1 - np.abs(z / (glass_h / 2) - 1)  # 0 at either plate, 1 at the neck
        return 0.0035 + 0.0335 * np.sin(np.pi * (0.08 + 0.92 * u**0.7)) ** 0.8

    def shell(z0: float, z1: float, swell: float = 1.0, closed: bool = False) -> trimesh.Trimesh:
        z = np.linspace(z0, z1, 24)
        ring = [(r, zz + plate_h) for r, zz in zip(radius(z) * swell, z)]
        return lathe([(0, z0 + plate_h)] * closed + ring + [(0, z1 + plate_h)] * closed, 40)

    # The glass is opaque, so the sand shows as bands hugging it: the lower pile and what is left above the neck.
    sand = merge(shell(0, 0.045, 1.015), shell(glass_h / 2, glass_h / 2 + 0.045, 1.015))
    plates = merge(cylinder(r_plate, plate_h, 40), moved(cylinder(r_plate, plate_h, 40), (0, 0, plate_h + glass_h)))
    post = lathe([(0, 0), (0.005, 0), (0.007, 0.02), (0.004, 0.05), (0.0065, glass_h / 2), (0.004, glass_h - 0.05),
                  (0.007, glass_h - 0.02), (0.005, glass_h), (0, glass_h)], 12)
    posts = merge(*(moved(post, (0.044 * np.cos(a), 0.044 * np.sin(a), plate_h)) for a in np.radians([90, 210, 330])))
    return [
        Part("glass", shell(0, glass_h, closed=True), Material("glass", (0.85, 0.92, 0.96), roughness=0.05)),
        Part("sand", sand, Material("sand", (0.86, 0.6, 0.26), roughness=0.9)),
        Part("plates", plates, DARK_WOOD),
        Part("posts", posts, DARK_WOOD),
    ]


def lantern() -> list[Part]:
    """A hurricane lantern: fuel tank, glowing glass globe in a wire guard, side tubes, cap and bail handle."""
    paint = Material("lantern red", (0.7, 0.08, 0.06), roughness=0.35, metallic=0.4)
    tank = lathe([(0, 0), (0.06, 0), (0.07, 0.015), (0.07, 0.035), (0.05, 0.05), (0.03, 0.055), (0, 0.055)], 40)
    globe = lathe([(0, 0.05), (0.035, 0.05), (0.05, 0.08), (0.056, 0.11), (0.05, 0.15), (0.035, 0.175), (0, 0.178)], 40)
    z = np.linspace(0.055, 0.175, 10)
    bulge = 0.058 + 0.008 * np.sin(np.pi * (z - 0.055) / 0.12)
    guard = [tube(np.stack([bulge * np.cos(a), bulge * np.sin(a), z], 1), 0.0018, sections=6)
             for a in np.radians([45, 135, 225, 315])]
    ring = arc(0.063, 0, 360, points=40, plane="xy")[:-1]
    guard += [loop(ring + (0, 0, zz), 0.0018, sections=6) for zz in (0.09, 0.135)]
    cap = lathe([(0, 0.172), (0.055, 0.172), (0.052, 0.18), (0.03, 0.2), (0.02, 0.215), (0.022, 0.225), (0, 0.228)], 40)
    tubes = merge(*(tube([(x, 0, 0.035), (x * 1.12, 0, 0.1), (x * 0.9, 0, 0.178)], 0.007, sections=12)
                     for x in (-0.07, 0.07)))
    bail = tube(arc(0.075, 0, 180, points=28) * (1, 1, 1.15) + (0, 0, 0.178), 0.0022, sections=8)
    knob = moved(cylinder(0.008, 0.012, 16), (0, -0.055, 0.043), Z_TO_MINUS_Y)
    return [
        Part("tank", tank, paint),
        Part("glass", globe, Material("lit glass", (1.0, 0.86, 0.5), roughness=0.1)),
        Part("guard", merge(*guard), paint),
        Part("cap", cap, paint),
        Part("side tubes", tubes, paint),
        Part("handle", bail, Material("wire", (0.25, 0.25, 0.27), roughness=0.4, metallic=0.8)),
        Part("knob", knob, BRASS),
    ]


def piggy_bank() -> list[Part]:
    """A pink ceramic piggy bank: round body, snout with nostrils, ears, eyes, four legs, coin slot, curly tail."""
    pink = Material("pig pink", (0.96, 0.62, 0.72), roughness=0.25)
    cz = 0.065
    body = moved(ellipsoid((0.06, 0.082, 0.058), 3), (0, 0, cz))
    snout = moved(lathe([(0, 0), (0.021, 0), (0.022, 0.018), (0.019, 0.024), (0, 0.025)], 32), (0, -0.07, cz - 0.005),
                  Z_TO_MINUS_Y)
    nostrils = merge(*(moved(decal(0.006, 0.009, elliptical=True, sections=12), (x, -0.0952, cz - 0.005))
                        for x in (-0.007, 0.007)))
    ear = lathe([(0, 0), (0.015, 0), (0, 0.028)], 12)
    ear.apply_scale((1, 0.4, 1))
    ears = merge(*(moved(ear, (side * 0.03, -0.045, cz + 0.045), (-25, side * 25, 0)) for side in (-1, 1)))
    eyes = merge(*(moved(uv_sphere(0.005, 8, 12), (side * 0.021, -0.071, cz + 0.022)) for side in (-1, 1)))
    legs = merge(*(moved(cylinder(0.014, 0.03, 16), (sx * 0.033, sy * 0.045, 0)) for sx in (-1, 1) for sy in (-1, 1)))
    slot = box((0.028, 0.005, 0.004), bottom_z=cz + 0.056)
    t = np.linspace(0, 1, 40)
    curl = np.stack([0.006 * np.cos(t * 4 * np.pi), 0.078 + 0.02 * t, cz + 0.01 + 0.006 * np.sin(t * 4 * np.pi)], 1)
    tail = tube(curl, 0.0025, sections=8)
    dark = Material("dark", (0.08, 0.03, 0.04), roughness=0.4)
    return [
        Part("body", merge(body, tail), pink),
        Part("legs", legs, pink),
        Part("snout", snout, Material("snout pink", (0.93, 0.5, 0.62), roughness=0.25)),
        Part("ears", ears, pink),
        Part("nostrils", nostrils, dark),
        Part("eyes", eyes, Material("eye", (0.02, 0.02, 0.02), roughness=0.1)),
        Part("coin slot", slot, dark),
    ]


def potted_plant() -> list[Part]:
    """A leafy plant in a terracotta pot: tapered pot with rim, dark soil, arching green leaves."""
    pot = lathe([(0, 0), (0.048, 0), (0.062, 0.105), (0.07, 0.106), (0.07, 0.13), (0.064, 0.13), (0.058, 0.112),
                 (0, 0.112)], 40)
    soil = moved(cylinder(0.059, 0.006, 32), (0, 0, 0.11))
    rng = np.random.default_rng(11)
    leaves_light, leaves_dark = [], []
    for k in range(16):
        turn = k * 137.5
        inner = k < 5
        blade = leaf(rng.uniform(0.11, 0.14) if inner else rng.uniform(0.14, 0.18), rng.uniform(0.035, 0.05),
                     rise_deg=rng.uniform(70, 80) if inner else rng.uniform(45, 65),
                     droop_deg=rng.uniform(40, 60) if inner else rng.uniform(80, 120), points=12)
        (leaves_light if k % 2 else leaves_dark).append(moved(blade, (0, 0, 0.114), (0, 0, turn)))
    return [
        Part("pot", pot, Material("terracotta", (0.74, 0.38, 0.22), roughness=0.75)),
        Part("soil", soil, Material("soil", (0.2, 0.13, 0.08), roughness=0.95)),
        Part("leaves", merge(*leaves_dark), Material("leaf", (0.13, 0.42, 0.14), roughness=0.5)),
        Part("young leaves", merge(*leaves_light), Material("young leaf", (0.3, 0.6, 0.2), roughness=0.5)),
    ]


RECIPES: dict[str, Callable[[], list[Part]]] = {
    "briefcase": briefcase,
    "book": book,
    "alarm clock": alarm_clock,
    "candle": candle,
    "vase": vase,
    "globe": globe,
    "hourglass": hourglass,
    "lantern": lantern,
    "piggy bank": piggy_bank,
    "potted plant": potted_plant,
}
