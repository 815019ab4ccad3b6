// The two kinds of node groundcrew manages; every folder spells them with this one type.

export type Os = 'linux' | 'windows';
